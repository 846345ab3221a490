import type { ColumnType } from "kysely";

/** One row per running controller process, renewed every few seconds. */
export interface ControllerLeasesTable {
  id: string;
  started_at: ColumnType<Date, Date | string | undefined, never>;
  renewed_at: ColumnType<Date, Date | string, Date | string>;
}

export interface ControllerTables {
  controller_leases: ControllerLeasesTable;
}
