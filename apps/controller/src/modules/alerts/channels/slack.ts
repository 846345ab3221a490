import { z } from "@hono/zod-openapi";
import { httpUrl } from "./config-parts.js";
import { alertText, truncate } from "./text.js";
import type { AlertChannel } from "./types.js";
import { byStatus, delivered, failed, snippet } from "./verdicts.js";

const configSchema = z.strictObject({ webhook_url: httpUrl });
export type SlackConfig = z.infer<typeof configSchema>;

/** Slack's mrkdwn reads `&`, `<` and `>` as markup: a name holding them is shown as written. */
function escapeMrkdwn(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/** Slack incoming webhook: `text` (notifications, fallback) and one Block Kit section in mrkdwn. */
export const slackChannel: AlertChannel<SlackConfig> = {
  type: "slack",
  configSchema,
  // The webhook URL is the credential: whoever knows it can post to the channel.
  secretFields: ["webhook_url"],
  build(message, config) {
    const text = alertText(message);
    const section = `*${escapeMrkdwn(text.title)}*\n${text.lines.map(escapeMrkdwn).join("\n")}`;
    const body = JSON.stringify({
      text: escapeMrkdwn(text.title),
      blocks: [{ type: "section", text: { type: "mrkdwn", text: truncate(section, 3000) } }],
    });
    return [
      {
        kind: "http",
        url: config.webhook_url,
        method: "POST",
        headers: { "content-type": "application/json" },
        body,
      },
    ];
  },
  // Delivered is HTTP 200 with the text `ok`. Errors come as plain-text codes (`invalid_payload`,
  // `no_service`, `channel_is_archived`): a 200 with another body fails, 429 and 5xx are retried.
  judge(status, body) {
    if (status === 200 && body.trim() === "ok") return delivered;
    if (status === 200) return failed(false, `Slack answered ${snippet(body) || "an empty body"}`);
    return byStatus(status, body);
  },
};
