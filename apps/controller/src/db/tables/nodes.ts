import type { ColumnType, Generated } from "kysely";

export interface NodesTable {
  id: string;
  name: string;
  country: string;
  region: string;
  provider: string;
  version: string;
  protocol_version: number;
  capabilities: ColumnType<string[], string[] | string, string[] | string>;
  running_jobs: Generated<number>;
  max_jobs: Generated<number>;
  last_seen: ColumnType<Date, Date | string, Date | string>;
  /** Set by a draining heartbeat: offline at once until the next normal heartbeat. */
  draining: Generated<boolean>;
  /** The key the node signs its results with (a user nkey, `U…`), from its heartbeats; docs/verify.md. */
  public_key: ColumnType<string | null, string | null | undefined, string | null>;
  first_seen: ColumnType<Date, Date | string | undefined, never>;
}

export interface NodeTables {
  nodes: NodesTable;
}
