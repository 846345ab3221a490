import { type Kysely, sql, type Transaction } from "kysely";
import type { Database } from "./schema.js";

/**
 * Monitor state changes were written (monitors' writer and stale sweep, in the transaction that writes
 * them): the notifiers listening wake at once instead of at their next poll (alerts/index.ts).
 */
export const STATE_CHANGES_CHANNEL = "vantage_state_changes";

/**
 * NOTIFY `channel` with `payload` (at most 8000 bytes), heard through `Db.listen` by every process
 * listening, this one included. Inside a transaction PostgreSQL delivers it at commit, and not at all on
 * rollback, so listeners never hear of a change they cannot read yet.
 */
export async function notify(
  db: Kysely<Database> | Transaction<Database>,
  channel: string,
  payload: string,
): Promise<void> {
  await sql`select pg_notify(${channel}, ${payload})`.execute(db);
}
