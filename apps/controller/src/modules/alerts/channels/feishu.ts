import { createHmac } from "node:crypto";
import { z } from "@hono/zod-openapi";
import { vendorUrl } from "./config-parts.js";
import { alertText } from "./text.js";
import type { AlertChannel, AlertKind } from "./types.js";
import { byStatus, delivered, failed, jsonObject, snippet } from "./verdicts.js";

const configSchema = z.strictObject({
  webhook_url: vendorUrl({
    path: /\/open-apis\/bot\/v2\/hook\/[^/]+$/,
    example: "https://open.feishu.cn/open-apis/bot/v2/hook/…",
  }),
  /** The bot's signature secret ("签名校验"). */
  secret: z
    .string()
    .regex(/^\S{1,200}$/, "must be the bot's secret")
    .optional(),
});
export type FeishuConfig = z.infer<typeof configSchema>;

/** `sign` of a Feishu/Lark bot: base64(HMAC-SHA256(key = `${timestamp}\n${secret}`, msg = "")), seconds. */
export function feishuSign(timestamp: string, secret: string): string {
  return createHmac("sha256", `${timestamp}\n${secret}`).update("").digest("base64");
}

const colours: Record<AlertKind, string> = {
  down: "red",
  reminder: "orange",
  up: "green",
  test: "blue",
  monitor_stale: "grey",
};

/** Feishu codes worth another attempt: 9499 and 11232, the bot's rate limits. */
const RETRYABLE = new Set([9499, 11232]);

/** Feishu/Lark custom bot: an interactive card, signed in the body when a secret is set. */
export const feishuChannel: AlertChannel<FeishuConfig> = {
  type: "feishu",
  configSchema,
  secretFields: ["webhook_url", "secret"],
  build(message, config, ctx) {
    const text = alertText(message);
    const signed: Record<string, string> = {};
    if (config.secret) {
      const timestamp = String(Math.floor(ctx.now() / 1000));
      signed["timestamp"] = timestamp;
      signed["sign"] = feishuSign(timestamp, config.secret);
    }
    const card = {
      header: { title: { tag: "plain_text", content: text.title }, template: colours[message.kind] },
      elements: [{ tag: "div", text: { tag: "lark_md", content: text.lines.join("\n") } }],
    };
    return [
      {
        kind: "http",
        url: config.webhook_url,
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ ...signed, msg_type: "interactive", card }),
      },
    ];
  },
  // HTTP 200 even on failure: delivered is `code` 0 (older answers: `StatusCode` 0). 9499 and 11232 are
  // retried; the rest (19021 sign or timestamp refused, 19024 keyword missing, 19001 bad message) fail.
  judge(status, body) {
    if (status !== 200) return byStatus(status, body);
    const answer = jsonObject(body);
    const code = answer?.["code"] ?? answer?.["StatusCode"];
    if (code === 0) return delivered;
    if (typeof code !== "number") return failed(false, `Feishu answered ${snippet(body)}`);
    const msg = answer?.["msg"] ?? answer?.["StatusMessage"];
    return failed(RETRYABLE.has(code), `Feishu code ${code}${typeof msg === "string" ? `: ${msg}` : ""}`);
  },
};
