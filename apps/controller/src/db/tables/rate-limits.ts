import type { ColumnType } from "kysely";

/** Fixed-window counters shared by every controller (login limits, probe quotas, …). */
export interface RateLimitsTable {
  bucket: string;
  window_start: ColumnType<Date, Date | string, Date | string>;
  hits: number;
  expires_at: ColumnType<Date, Date | string, Date | string>;
}

export interface RateLimitTables {
  rate_limits: RateLimitsTable;
}
