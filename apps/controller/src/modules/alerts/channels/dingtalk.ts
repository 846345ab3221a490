import { createHmac } from "node:crypto";
import { z } from "@hono/zod-openapi";
import { vendorUrl } from "./config-parts.js";
import { alertText } from "./text.js";
import type { AlertChannel } from "./types.js";
import { byStatus, delivered, failed, jsonObject, snippet } from "./verdicts.js";

const configSchema = z.strictObject({
  webhook_url: vendorUrl({
    path: /\/robot\/send$/,
    param: "access_token",
    example: "https://oapi.dingtalk.com/robot/send?access_token=…",
  }),
  /** The robot's signing secret ("加签"), shown by DingTalk as `SEC…`. */
  secret: z
    .string()
    .regex(/^SEC[A-Za-z0-9]{1,200}$/, "must be the robot's SEC… secret")
    .optional(),
});
export type DingtalkConfig = z.infer<typeof configSchema>;

/** `sign` of a DingTalk robot: base64(HMAC-SHA256(key = secret, msg = `${timestamp}\n${secret}`)), ms. */
export function dingtalkSign(timestamp: number, secret: string): string {
  return createHmac("sha256", secret).update(`${timestamp}\n${secret}`).digest("base64");
}

/** DingTalk errcodes worth another attempt: 130101 sending too fast (20 a minute), -1 system busy. */
const RETRYABLE = new Set([130101, -1]);

/** DingTalk custom robot: a markdown message, the URL signed with `timestamp` and `sign` when a secret is set. */
export const dingtalkChannel: AlertChannel<DingtalkConfig> = {
  type: "dingtalk",
  configSchema,
  // The access token in the URL is the credential, the secret signs.
  secretFields: ["webhook_url", "secret"],
  build(message, config, ctx) {
    const text = alertText(message);
    const url = new URL(config.webhook_url);
    if (config.secret) {
      const timestamp = ctx.now();
      url.searchParams.set("timestamp", String(timestamp));
      url.searchParams.set("sign", dingtalkSign(timestamp, config.secret));
    }
    // DingTalk's markdown needs a blank line for a line break.
    const markdown = { title: text.title, text: [`### ${text.title}`, ...text.lines].join("\n\n") };
    return [
      {
        kind: "http",
        url: url.href,
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ msgtype: "markdown", markdown }),
      },
    ];
  },
  // HTTP 200 even on failure: delivered is `errcode` 0. 130101 and -1 are retried; the rest (310000 keyword,
  // sign, timestamp or IP refused, 300001 bad token, 400xxx bad message) will not pass as they are.
  judge(status, body) {
    if (status !== 200) return byStatus(status, body);
    const answer = jsonObject(body);
    if (answer?.["errcode"] === 0) return delivered;
    if (typeof answer?.["errcode"] !== "number") return failed(false, `DingTalk answered ${snippet(body)}`);
    const errmsg = typeof answer["errmsg"] === "string" ? `: ${answer["errmsg"]}` : "";
    return failed(RETRYABLE.has(answer["errcode"]), `DingTalk errcode ${answer["errcode"]}${errmsg}`);
  },
};
