import type { Kysely, Transaction } from "kysely";
import type { Db } from "../../db/connect.js";
import { notify } from "../../db/notify.js";
import type { Database } from "../../db/schema.js";
import type { Worker } from "../../deps.js";
import type { CredentialVerifier } from "./credentials.js";

/**
 * Every controller caches credentials with the account's plan for 10 s. A change to an account that must
 * apply everywhere at once (its plan, a revoked key or session) is announced on this channel, in the
 * transaction that makes it, as `{"user_id":"usr_…"}`; each controller's watcher then drops what it holds
 * of that account, and its next request reads the account afresh.
 */
export const ACCOUNTS_CHANNEL = "vantage_accounts";

/** Announces a change to the account; in a transaction, it is heard when the change commits. */
export async function announceAccountChange(
  db: Kysely<Database> | Transaction<Database>,
  userId: string,
): Promise<void> {
  await notify(db, ACCOUNTS_CHANNEL, JSON.stringify({ user_id: userId }));
}

/** The account a payload names; undefined for anything else (the channel is open to any database user). */
export function changedAccount(payload: string): string | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(payload);
  } catch {
    return undefined;
  }
  if (typeof parsed !== "object" || parsed === null) return undefined;
  const userId = (parsed as { user_id?: unknown }).user_id;
  return typeof userId === "string" && userId !== "" ? userId : undefined;
}

/**
 * Listens for account changes while it runs: each one drops the account's cached credentials in this
 * process. After the listen connection came back (changes may have been announced while it was down),
 * the whole cache is dropped. Without it (the connection down, or the worker not started), the cache's
 * 10 s remain the bound.
 */
export function createAccountsWatcher(db: Db, credentials: CredentialVerifier): Worker {
  let listening: { close(): Promise<void> } | undefined;
  return {
    async start() {
      if (listening) return;
      listening = await db.listen(
        ACCOUNTS_CHANNEL,
        (payload) => {
          const userId = changedAccount(payload);
          if (userId !== undefined) credentials.forgetUser(userId);
        },
        () => credentials.forgetAll(),
      );
    },
    async stop() {
      const was = listening;
      listening = undefined;
      await was?.close();
    },
  };
}
