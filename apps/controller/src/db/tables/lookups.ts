import type { ColumnType } from "kysely";

/** The newest answer of a lookup per kind and key (the ICP lookup's cache of earlier answers). */
export interface LookupRecordsTable {
  kind: string;
  key: string;
  record: ColumnType<Record<string, unknown>, string, string>;
  checked_at: ColumnType<Date, Date | string, Date | string>;
}

export interface LookupTables {
  lookup_records: LookupRecordsTable;
}
