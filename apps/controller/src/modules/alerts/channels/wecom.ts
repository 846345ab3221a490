import { z } from "@hono/zod-openapi";
import { vendorUrl } from "./config-parts.js";
import { alertText, truncateBytes } from "./text.js";
import type { AlertChannel } from "./types.js";
import { byStatus, delivered, failed, jsonObject, snippet } from "./verdicts.js";

const configSchema = z.strictObject({
  webhook_url: vendorUrl({
    path: /\/cgi-bin\/webhook\/send$/,
    param: "key",
    example: "https://qyapi.weixin.qq.com/cgi-bin/webhook/send?key=…",
  }),
});
export type WecomConfig = z.infer<typeof configSchema>;

/** WeCom errcodes worth another attempt: 45009 over the rate limit, -1 system busy. */
const RETRYABLE = new Set([45009, -1]);

/** WeCom group robot: one markdown message (at most 4096 bytes); the key in the URL is the credential. */
export const wecomChannel: AlertChannel<WecomConfig> = {
  type: "wecom",
  configSchema,
  secretFields: ["webhook_url"],
  build(message, config) {
    const text = alertText(message);
    const content = truncateBytes([`**${text.title}**`, ...text.lines].join("\n"), 4096);
    return [
      {
        kind: "http",
        url: config.webhook_url,
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ msgtype: "markdown", markdown: { content } }),
      },
    ];
  },
  // HTTP 200 even on failure: delivered is `errcode` 0. 45009 and -1 are retried; the rest (93000 bad
  // key, 40058 bad content, …) fail.
  judge(status, body) {
    if (status !== 200) return byStatus(status, body);
    const answer = jsonObject(body);
    if (answer?.["errcode"] === 0) return delivered;
    if (typeof answer?.["errcode"] !== "number") return failed(false, `WeCom answered ${snippet(body)}`);
    const errmsg = typeof answer["errmsg"] === "string" ? `: ${answer["errmsg"]}` : "";
    return failed(RETRYABLE.has(answer["errcode"]), `WeCom errcode ${answer["errcode"]}${errmsg}`);
  },
};
