import { z } from "@hono/zod-openapi";
import { alertText, truncate } from "./text.js";
import type { AlertChannel, AlertMessage } from "./types.js";
import { byStatus, delivered, failed, jsonObject, snippet } from "./verdicts.js";

const configSchema = z.strictObject({
  routing_key: z.string().regex(/^[A-Za-z0-9]{32}$/, "must be the 32-character integration key"),
  severity: z.enum(["critical", "error", "warning", "info"]).optional(),
});
export type PagerdutyConfig = z.infer<typeof configSchema>;

/**
 * One alert per monitor: a reminder lands on the open one, `up` resolves it. A test opens its own alert
 * (keyed by its event), so it never touches or resolves a real one.
 */
export function pagerdutyDedupKey(message: AlertMessage): string {
  return message.kind === "test" || !message.monitor
    ? `vantage-test-${message.event_id}`
    : `vantage-${message.monitor.id}`;
}

/** PagerDuty Events API v2: `down`, `reminder` and `test` trigger, `up` resolves. */
export const pagerdutyChannel: AlertChannel<PagerdutyConfig> = {
  type: "pagerduty",
  configSchema,
  secretFields: ["routing_key"],
  build(message, config, ctx) {
    const dedup_key = pagerdutyDedupKey(message);
    const event =
      message.kind === "up"
        ? { routing_key: config.routing_key, event_action: "resolve", dedup_key }
        : {
            routing_key: config.routing_key,
            event_action: "trigger",
            dedup_key,
            client: "Vantage",
            ...(message.dashboard_url ? { client_url: message.dashboard_url } : {}),
            payload: payload(message, config),
          };
    return [
      {
        kind: "http",
        url: ctx.pagerdutyUrl,
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(event),
      },
    ];
  },
  // Delivered is 202 with `status: "success"`. 429 and 5xx are retried (PagerDuty asks for backoff);
  // 400 is a malformed event and will not pass.
  judge(status, body) {
    if (status === 202 && jsonObject(body)?.["status"] === "success") return delivered;
    if (status === 202) return failed(false, `PagerDuty answered ${snippet(body)}`);
    return byStatus(status, body);
  },
};

function payload(message: AlertMessage, config: PagerdutyConfig) {
  const text = alertText(message);
  return {
    summary: truncate([text.title, ...text.lines.slice(0, 1)].join(": "), 1024),
    source: truncate(message.monitor?.target ?? "vantage", 255),
    severity: config.severity ?? "critical",
    timestamp: message.occurred_at,
    ...(message.monitor
      ? { component: truncate(message.monitor.name, 255), class: message.monitor.type }
      : {}),
    custom_details: {
      event_id: message.event_id,
      kind: message.kind,
      monitor: message.monitor,
      error: message.error ?? null,
      nodes: message.nodes ?? [],
      dashboard_url: message.dashboard_url ?? null,
    },
  };
}
