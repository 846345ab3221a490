import type { AlertChannelView, AlertDelivery, AlertEvent, AlertPolicy } from "./types.js";

// The views are the same in both forms: only the list routes' page fields differ.

export const toChannelView = (c: AlertChannelView) => ({
  id: c.id,
  name: c.name,
  type: c.type,
  config: c.config,
  created_at: c.created_at.toISOString(),
  updated_at: c.updated_at.toISOString(),
  delivery: {
    failing: c.delivery.failing,
    failing_since: c.delivery.failing_since?.toISOString() ?? null,
    next_attempt_at: c.delivery.next_attempt_at?.toISOString() ?? null,
    last_error: c.delivery.last_error,
    last_error_at: c.delivery.last_error_at?.toISOString() ?? null,
    queued: c.delivery.queued,
  },
});

export const toPolicyView = (p: AlertPolicy) => ({
  id: p.id,
  name: p.name,
  monitor_id: p.monitor_id,
  scope: p.monitor_id === null ? ("all" as const) : ("monitor" as const),
  channel_ids: p.channel_ids,
  on_down: p.on_down,
  on_up: p.on_up,
  reminder_minutes: p.reminder_minutes,
  escalation: p.escalation ?? [],
  created_at: p.created_at.toISOString(),
  updated_at: p.updated_at.toISOString(),
});

export const toEventView = (e: AlertEvent) => ({
  id: e.id,
  policy_id: e.policy_id,
  monitor_id: e.monitor_id,
  type: e.type,
  created_at: new Date(e.created_at).toISOString(),
  detail: e.detail,
  acknowledged_at: e.acknowledged_at ? new Date(e.acknowledged_at).toISOString() : null,
  acknowledged_by: e.acknowledged_by ?? null,
});

export const toDeliveryView = (d: AlertDelivery) => ({
  channel_id: d.channel_id,
  status: d.status,
  attempts: d.attempts,
  sent_at: d.sent_at ? new Date(d.sent_at).toISOString() : null,
  last_error: d.last_error,
  log: d.log,
});
