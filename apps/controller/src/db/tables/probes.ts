import type { ColumnType } from "kysely";

export type ProbeTaskStatus = "queued" | "running" | "done" | "failed";

type Json<T> = ColumnType<T, string, string>;

export interface ProbeTasksTable {
  id: string;
  type: string;
  /** The URL, host or domain probed, as given (for listing and logs). */
  target: string;
  /** The internal job spec (`{type, params}`) sent to every node. */
  spec: Json<unknown>;
  status: ProbeTaskStatus;
  node_ids: Json<string[]>;
  owner_id: string | null;
  created_at: ColumnType<Date, Date | string | undefined, never>;
  finished_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  /** Form A: when the last node must have answered; null for Form B tasks (written finished). */
  deadline_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  /** Form A: the controller instance running the task (see `controller_leases`). */
  controller_id: string | null;
  /** Form A: called (signed, Standard Webhooks) once the task finishes; docs/shares.md. */
  callback_url: ColumnType<string | null, string | null | undefined, string | null>;
}

export interface ProbeResultsTable {
  task_id: string;
  node_id: string;
  node_name: string;
  /** Order of the node in the task's node list, so results read back in a stable order. */
  position: number;
  success: boolean;
  latency_ms: number | null;
  error_code: string | null;
  error_message: string | null;
  detail: Json<Record<string, unknown> | null> | null;
  duration_ms: number | null;
  created_at: ColumnType<Date, Date | string | undefined, never>;
  /** `{key, sig, statement}` as the controller checked it (docs/verify.md); null when unsigned. */
  signature: ColumnType<ResultSignatureRecord | null, string | null | undefined, string | null>;
}

/** A result's signature as stored: the node's key, the signature and the exact statement signed. */
export interface ResultSignatureRecord {
  key: string;
  sig: string;
  statement: string;
}

/** A published task (share link); live while `revoked_at` is null. */
export interface ProbeSharesTable {
  id: string;
  task_id: string;
  owner_id: string;
  created_at: ColumnType<Date, Date | string | undefined, never>;
  revoked_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
}

export interface ProbeTables {
  probe_tasks: ProbeTasksTable;
  probe_results: ProbeResultsTable;
  probe_shares: ProbeSharesTable;
}
