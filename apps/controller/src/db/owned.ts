import type { Kysely, Selectable, Transaction } from "kysely";
import type { Database } from "./schema.js";

type Executor = Kysely<Database> | Transaction<Database>;

/** Tables whose rows belong to one account (`owner_id`) and are addressed by `id`. */
export type OwnedTable = "monitors" | "alert_channels" | "alert_policies" | "alert_events";

/**
 * The owner's row of `table` with this id, or undefined: another account's row is not found, like an
 * unknown id (the ownership rule: 404 for both). `forUpdate` locks it for the transaction (read-modify-write).
 */
export async function ownedRow<T extends OwnedTable>(
  db: Executor,
  table: T,
  ownerId: string,
  id: string,
  opts: { forUpdate?: boolean } = {},
): Promise<Selectable<Database[T]> | undefined> {
  const q = (db as Kysely<Database>)
    .selectFrom(table as OwnedTable)
    .selectAll()
    .where("id", "=", id)
    .where("owner_id", "=", ownerId);
  return (await (opts.forUpdate ? q.forUpdate() : q).executeTakeFirst()) as
    | Selectable<Database[T]>
    | undefined;
}

/**
 * Locks the account's row for the transaction, so count-then-insert takes turns per account (API keys,
 * monitors, alert channels); its plan, or undefined for an unknown account. `FOR NO KEY UPDATE`: foreign-key
 * checks of rows inserted for the account meanwhile do not wait on it.
 */
export async function lockAccount(
  tx: Transaction<Database>,
  userId: string,
): Promise<{ plan: string } | undefined> {
  return tx.selectFrom("users").select("plan").where("id", "=", userId).forNoKeyUpdate().executeTakeFirst();
}
