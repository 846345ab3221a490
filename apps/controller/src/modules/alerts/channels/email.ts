import { z } from "@hono/zod-openapi";
import { alertText } from "./text.js";
import type { AlertChannel } from "./types.js";
import { delivered, failed, snippet } from "./verdicts.js";

const configSchema = z.strictObject({
  to: z.array(z.email().max(254)).min(1).max(10),
});
export type EmailConfig = z.infer<typeof configSchema>;

/** Email: one mail to every address, handed to the SMTP outbox (which retries); nothing here speaks SMTP. */
export const emailChannel: AlertChannel<EmailConfig> = {
  type: "email",
  configSchema,
  secretFields: [],
  build(message, config) {
    const text = alertText(message);
    return [
      { kind: "email", to: config.to, subject: `[Vantage] ${text.title}`, text: text.lines.join("\n") },
    ];
  },
  // `status` is the SMTP reply code to the message: 2xx accepted, 4xx transient, 5xx permanent (RFC 5321).
  judge(status, body) {
    if (status >= 200 && status < 300) return delivered;
    return failed(status >= 400 && status < 500, `SMTP ${status}${body ? `: ${snippet(body)}` : ""}`);
  },
};
