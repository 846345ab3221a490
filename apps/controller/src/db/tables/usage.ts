import type { ColumnType } from "kysely";

/** Metered use per account, UTC day (`YYYY-MM-DD`) and family; counts are bigint (strings from postgres.js). */
export interface UsageDailyTable {
  user_id: string;
  day: ColumnType<string, string, string>;
  family: string;
  units: ColumnType<string | number, number, number>;
  calls: ColumnType<string | number, number, number>;
  updated_at: ColumnType<Date, Date | undefined, Date>;
}

export interface UsageTables {
  usage_daily: UsageDailyTable;
}
