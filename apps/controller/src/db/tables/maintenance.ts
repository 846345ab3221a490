import type { ColumnType } from "kysely";

type NullableTime = ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;

/** A maintenance window (modules/monitors/maintenance-*.ts): one-off, or recurring by an RRULE subset. */
export interface MaintenanceWindowsTable {
  id: string;
  owner_id: string;
  title: string;
  /** Every monitor of the owner, those made later included; `monitor_ids` is then empty. */
  all_monitors: ColumnType<boolean, boolean | undefined, boolean>;
  monitor_ids: ColumnType<string[], string[] | undefined, string[]>;
  /** One-off: `[starts_at, ends_at)`; null for a recurring window. */
  starts_at: NullableTime;
  ends_at: NullableTime;
  /** Recurring: the rule, the first local start `YYYY-MM-DDTHH:MM`, its IANA zone and each length. */
  rrule: string | null;
  start_local: string | null;
  time_zone: string | null;
  duration_minutes: number | null;
  created_at: ColumnType<Date, Date | string | undefined, never>;
  updated_at: ColumnType<Date, Date | string | undefined, Date | string>;
}

/** One OpenMetrics scrape token per account: its SHA-256 and display prefix, never the token. */
export interface MetricsTokensTable {
  owner_id: string;
  token_hash: string;
  prefix: string;
  created_at: ColumnType<Date, Date | string | undefined, Date | string>;
  last_used_at: NullableTime;
}

export interface MaintenanceTables {
  maintenance_windows: MaintenanceWindowsTable;
  metrics_tokens: MetricsTokensTable;
}
