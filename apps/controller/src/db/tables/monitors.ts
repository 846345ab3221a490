import type { ColumnType, Generated } from "kysely";

type Json<T> = ColumnType<T, string, string>;
type Time = ColumnType<Date, Date | string, Date | string>;
type NullableTime = ColumnType<Date | null, Date | string | null, Date | string | null>;

export type MonitorType = "http" | "ping" | "tcp" | "dns" | "traceroute" | "mtr";
export type MonitorStatus = "active" | "paused";
export type MonitorPausedReason = "agent_crash";
/** `unknown` until the first run decides; then `up` or `down` by the thresholds. */
export type MonitorState = "unknown" | "up" | "down";
/**
 * Why a monitor is `unknown` after having had no completed run for two intervals (null while runs decide):
 * its slots were claimed but no node could run them, no scheduler claimed them, or the system paused it.
 */
export type MonitorStateReason = "no_nodes" | "scheduler_behind" | "paused_by_system";

export interface MonitorsTable {
  id: string;
  /** Compact key of the monitor's run rows and roll-ups. */
  seq: Generated<string | number>;
  owner_id: string;
  name: string;
  type: MonitorType;
  /** As Form A names it: the URL (http), `host` (ping, traceroute), `host:port` (tcp), the domain (dns). */
  target: string;
  /** Type-specific settings (see modules/monitors/config.ts), nodes included. */
  config: Json<Record<string, unknown>>;
  interval_s: number;
  /**
   * How long one run may take, seconds (the probe's budget and the dispatch grace); 0 on rows from before
   * it was kept. The stale sweep waits for the longer of this and the interval (modules/monitors/stale.ts).
   */
  run_budget_s: ColumnType<number, number | undefined, number>;
  status: MonitorStatus;
  /** Why it is paused when the system paused it (`agent_crash`); null when a person did, or it runs. */
  paused_reason: ColumnType<
    MonitorPausedReason | null,
    MonitorPausedReason | null | undefined,
    MonitorPausedReason | null
  >;
  state: ColumnType<MonitorState, MonitorState | undefined, MonitorState>;
  state_reason: ColumnType<
    MonitorStateReason | null,
    MonitorStateReason | null | undefined,
    MonitorStateReason | null
  >;
  state_changed_at: NullableTime;
  fail_streak: ColumnType<number, number | undefined, number>;
  pass_streak: ColumnType<number, number | undefined, number>;
  /** The newest slot whose outcome has been applied to the state (older outcomes arriving late are not). */
  last_slot: NullableTime;
  /** The next slot: when the monitor is due. */
  next_run_at: Time;
  created_at: ColumnType<Date, Date | string | undefined, never>;
  updated_at: ColumnType<Date, Date | string | undefined, Date | string>;
}

export interface MonitorRunsTable {
  monitor_seq: string | number;
  slot: Time;
  node_id: string;
  success: boolean;
  latency_ms: number | null;
  error_code: string | null;
  /** http monitors: the status the node was answered with; null for other types or without an answer. */
  status_code: number | null;
}

export interface MonitorRollupsTable {
  monitor_seq: string | number;
  period: "minute" | "hour" | "day";
  bucket: Time;
  runs: number;
  failures: number;
  latency_p50: number | null;
  latency_p95: number | null;
}

export interface MonitorStateChangesTable {
  id: string;
  monitor_id: string;
  slot: Time;
  from_state: MonitorState;
  to_state: MonitorState;
  /**
   * A change to `down`: the failing nodes' traceroute and DNS results (modules/monitors/evidence.ts), or
   * `{"pending": true}` while they are being collected; null when none are expected.
   */
  evidence: ColumnType<unknown, string | undefined, string>;
  /** A change to `unknown` because no run completed for two intervals: why (see MonitorStateReason). */
  reason: ColumnType<
    MonitorStateReason | null,
    MonitorStateReason | null | undefined,
    MonitorStateReason | null
  >;
  created_at: ColumnType<Date, Date | string | undefined, never>;
  /** When its alert events were made (alerts issue); null until then. */
  alerted_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  /** The maintenance window that muted the change's alerts (issue #29 item 4); null when none did. */
  maintenance_id: ColumnType<string | null, string | null | undefined, string | null>;
}

export interface MonitorTables {
  monitors: MonitorsTable;
  monitor_runs: MonitorRunsTable;
  monitor_rollups: MonitorRollupsTable;
  monitor_state_changes: MonitorStateChangesTable;
}
