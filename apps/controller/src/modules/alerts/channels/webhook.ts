import { randomBytes } from "node:crypto";
import { z } from "@hono/zod-openapi";
import { Webhook } from "standardwebhooks";
import { httpUrl } from "./config-parts.js";
import { alertText } from "./text.js";
import type { AlertChannel, AlertMessage } from "./types.js";
import { answered, delivered, failed } from "./verdicts.js";

/** `whsec_` and base64 of 24–64 random bytes, as the Standard Webhooks spec shows a signing secret. */
const secret = z
  .string()
  .max(100)
  .regex(/^whsec_[A-Za-z0-9+/]+={0,2}$/, "must be whsec_ followed by base64")
  .refine((value) => {
    const bytes = Buffer.from(value.slice("whsec_".length), "base64").length;
    return bytes >= 24 && bytes <= 64;
  }, "must encode 24 to 64 bytes");

const configSchema = z.strictObject({ url: httpUrl, secret });
export type WebhookConfig = z.infer<typeof configSchema>;

const eventTypes: Record<AlertMessage["kind"], string> = {
  down: "monitor.down",
  up: "monitor.up",
  reminder: "monitor.reminder",
  test: "channel.test",
  monitor_stale: "monitor.stale",
};

/**
 * A generic webhook signed per Standard Webhooks: `webhook-id` is the event id (stable across retries, the
 * receiver's idempotency key), `webhook-timestamp` the send time in seconds, `webhook-signature`
 * `v1,base64(HMAC-SHA256(secret, "{id}.{timestamp}.{body}"))`.
 */
export const webhookChannel: AlertChannel<WebhookConfig> = {
  type: "webhook",
  configSchema,
  secretFields: ["secret"],
  // 32 random bytes, as the Standard Webhooks libraries make a secret.
  generatedSecrets: { secret: () => `whsec_${randomBytes(32).toString("base64")}` },
  build(message, config, ctx) {
    const text = alertText(message);
    const body = JSON.stringify({
      type: eventTypes[message.kind],
      timestamp: message.occurred_at,
      data: {
        event_id: message.event_id,
        kind: message.kind,
        monitor: message.monitor,
        occurred_at: message.occurred_at,
        error: message.error ?? null,
        ...(message.kind === "monitor_stale" ? { reason: message.reason ?? null } : {}),
        nodes: message.nodes ?? [],
        ...(message.evidence ? { evidence: message.evidence } : {}),
        ...(message.event_url ? { event_url: message.event_url } : {}),
        dashboard_url: message.dashboard_url ?? null,
        ...(message.ack_url ? { ack_url: message.ack_url } : {}),
        locale: message.locale,
        title: text.title,
        text: text.lines.join("\n"),
      },
    });
    const sentAt = new Date(ctx.now());
    const signature = new Webhook(config.secret).sign(message.event_id, sentAt, body);
    return [
      {
        kind: "http",
        url: config.url,
        method: "POST",
        headers: {
          "content-type": "application/json",
          "webhook-id": message.event_id,
          "webhook-timestamp": String(Math.floor(sentAt.getTime() / 1000)),
          "webhook-signature": signature,
        },
        body,
      },
    ];
  },
  // Standard Webhooks: 2xx is delivered, 410 Gone means the endpoint is gone for good (do not retry, the
  // caller may disable the channel), any other answer is a failed attempt to retry on the schedule; a
  // redirect included, since none is followed.
  judge(status, body) {
    if (status >= 200 && status < 300) return delivered;
    if (status === 410) return failed(false, "HTTP 410: the endpoint is gone");
    return failed(true, answered(status, body));
  },
};
