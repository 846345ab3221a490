import type { ColumnType } from "kysely";

type Json<T> = ColumnType<T, string, string>;
type Created = ColumnType<Date, Date | string | undefined, never>;
type Updated = ColumnType<Date, Date | string | undefined, Date | string>;
type NullableTime = ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;

export type AlertEventType = "down" | "up" | "reminder" | "escalation" | "test" | "monitor_stale";
export type AlertDeliveryStatus = "pending" | "sent" | "failed";

export interface AlertChannelsTable {
  id: string;
  owner_id: string;
  name: string;
  type: string;
  /** The channel's settings without its secrets. */
  config: Json<Record<string, unknown>>;
  /** The secret settings, sealed (lib/secret-box.ts) with the row as associated data; null when none. */
  secrets: string | null;
  created_at: Created;
  updated_at: Updated;
  /** Delivery health (the notifier's): the first failure of the current run of failures; null when well. */
  failing_since: ColumnType<Date | null, Date | null | undefined, Date | null>;
  /** Retryable failures in a row. */
  failures: ColumnType<number, number | undefined, number>;
  /** While failing: no delivery before this; then one (the oldest) is tried as a probe. */
  retry_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  last_error: ColumnType<string | null, string | null | undefined, string | null>;
  last_error_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
}

export interface AlertPoliciesTable {
  id: string;
  owner_id: string;
  name: string;
  /** Null: every monitor of the owner, those made later included. */
  monitor_id: string | null;
  channel_ids: ColumnType<string[], string[] | undefined, string[]>;
  on_down: ColumnType<boolean, boolean | undefined, boolean>;
  on_up: ColumnType<boolean, boolean | undefined, boolean>;
  reminder_minutes: number | null;
  /** After N minutes unacknowledged, notify these channels too, step by step (issue #29 item 6). */
  escalation: ColumnType<EscalationStep[], string | undefined, string>;
  created_at: Created;
  updated_at: Updated;
}

export interface AlertEventsTable {
  id: string;
  owner_id: string;
  /** The policy that made the event; kept when the policy (or its monitor) is deleted: no foreign key. */
  policy_id: string;
  /** Kept when the monitor is deleted, as the policy's id. */
  monitor_id: string;
  type: AlertEventType;
  state_change_id: string | null;
  detail: Json<Record<string, unknown>>;
  created_at: Created;
  /** A down event acknowledged (API or signed link): no escalation or reminder follows. */
  acknowledged_at: NullableTime;
  /** Who: a user id, or `link` for the signed link in a message. */
  acknowledged_by: ColumnType<string | null, string | null | undefined, string | null>;
}

export interface EscalationStep {
  after_minutes: number;
  channel_ids: string[];
}

/** One attempt of a delivery, as the delivery log keeps it. */
export interface DeliveryAttempt {
  at: string;
  ok: boolean;
  status: number | null;
  reason: string | null;
}

export interface AlertDeliveriesTable {
  id: string;
  event_id: string;
  channel_id: string;
  status: ColumnType<AlertDeliveryStatus, AlertDeliveryStatus | undefined, AlertDeliveryStatus>;
  attempts: ColumnType<number, number | undefined, number>;
  next_attempt_at: ColumnType<Date, Date | string | undefined, Date | string>;
  sent_at: NullableTime;
  last_error: string | null;
  log: Json<DeliveryAttempt[]>;
}

export interface AlertTables {
  alert_channels: AlertChannelsTable;
  alert_policies: AlertPoliciesTable;
  alert_events: AlertEventsTable;
  alert_deliveries: AlertDeliveriesTable;
}
