import { z } from "@hono/zod-openapi";
import { e164 } from "./config-parts.js";
import { alertText, truncate } from "./text.js";
import type { AlertChannel } from "./types.js";
import { byStatus, delivered, failed, jsonObject, snippet } from "./verdicts.js";

const configSchema = z.strictObject({
  /** Goes into the URL path: letters and digits only (Twilio's are `AC` and 32 hex digits). */
  account_sid: z.string().regex(/^[A-Za-z0-9]{2,64}$/, "must be the account SID"),
  auth_token: z.string().min(1).max(128),
  from: e164,
  to: z
    .array(e164)
    .min(1)
    .max(5)
    .refine((list) => new Set(list).size === list.length, "lists a number twice"),
});
export type SmsConfig = z.infer<typeof configSchema>;

/** The most an SMS body may hold (Twilio splits and joins up to 1600 characters). */
const MAX_BODY = 1600;

/** SMS through a Twilio-compatible Messages API: one form-encoded request per recipient, Basic auth. */
export const smsChannel: AlertChannel<SmsConfig> = {
  type: "sms",
  configSchema,
  secretFields: ["auth_token"],
  build(message, config, ctx) {
    const text = alertText(message);
    const body = truncate([text.title, ...text.lines].join("\n"), MAX_BODY);
    const url = `${ctx.smsBaseUrl.replace(/\/+$/, "")}/2010-04-01/Accounts/${config.account_sid}/Messages.json`;
    const authorization = `Basic ${Buffer.from(`${config.account_sid}:${config.auth_token}`).toString("base64")}`;
    return config.to.map((to) => ({
      kind: "http",
      url,
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", authorization },
      body: new URLSearchParams({ To: to, From: config.from, Body: body }).toString(),
    }));
  },
  // Delivered is 201 with the message's `sid` (a compatible API answering 200 with a `sid` is accepted too).
  // 429 and 5xx are retried; other 4xx (21211 bad number, 20003 bad credentials) will not pass.
  judge(status, body) {
    if (status === 200 || status === 201) {
      const sid = jsonObject(body)?.["sid"];
      return typeof sid === "string" && sid ? delivered : failed(false, `no message sid in ${snippet(body)}`);
    }
    return byStatus(status, body);
  },
};
