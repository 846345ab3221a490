import type { PGlite } from "@electric-sql/pglite";
import type { Kysely } from "kysely";
import type { Sql } from "postgres";
import type { Database } from "./schema.js";

/** What `Db.listen` answers: `close` ends the handler's messages (at once, whatever the connection does). */
export interface Listening {
  close(): Promise<void>;
}

export type Listen = (
  channel: string,
  onMessage: (payload: string) => void,
  onListen?: () => void,
) => Promise<Listening>;

/**
 * Channels are plain lower-case identifiers: PGlite writes the name into `LISTEN <name>` unquoted (so
 * anything else would be SQL, or folded to another name), while postgres.js quotes it.
 */
function checkChannel(channel: string): void {
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(channel)) {
    throw new Error(`invalid channel name "${channel}": use lower-case letters, digits and _ (at most 63)`);
  }
}

/** A handler that throws must not reach the driver's socket code (postgres.js) or query loop (PGlite). */
function call(fn: (() => void) | undefined): void {
  try {
    fn?.();
  } catch {
    // The handler's own concern; the other handlers and the connection carry on.
  }
}

/**
 * LISTEN over postgres.js. Its `listen` keeps one connection for all the client's channels, issues LISTEN
 * again after every reconnection (with the pool's back-off) and, when the first attempt fails, goes on
 * trying on its own. Two of its quirks (3.4.9) shape this: after a reconnection the `unlisten` it handed
 * out no longer finds its listener (the re-listen registers copies), and a listen whose first attempt
 * failed is retried with no handle to stop it. So each channel is listened once per client, for the
 * client's life (one idle connection, ended by `Db.close`), and its messages are fanned out from here:
 * `close` takes a handler out of that set, which cannot fail.
 *
 * The promise resolves once the first LISTEN has succeeded, or has failed (the database away), or
 * `firstAttemptMs` passed: it never rejects for the database, so a controller that starts while
 * PostgreSQL is away still starts, and messages flow once postgres.js gets its LISTEN through. Messages
 * sent while the connection is down are lost; `onListen` runs after every successful LISTEN (for the
 * handlers registered by then), so a caller can make up for what it may have missed.
 */
export function postgresListen(client: Sql, firstAttemptMs: number): Listen {
  const channels = new Map<string, { handlers: Set<Handler>; first: Promise<void> }>();
  interface Handler {
    onMessage(payload: string): void;
    onListen: (() => void) | undefined;
  }
  return async (channel, onMessage, onListen) => {
    checkChannel(channel);
    let entry = channels.get(channel);
    if (!entry) {
      const handlers = new Set<Handler>();
      const request = client.listen(
        channel,
        (payload) => {
          for (const h of [...handlers]) call(() => h.onMessage(payload));
        },
        () => {
          for (const h of [...handlers]) call(h.onListen);
        },
      );
      entry = { handlers, first: settled(request, firstAttemptMs) };
      channels.set(channel, entry);
    }
    const handler: Handler = { onMessage, onListen };
    entry.handlers.add(handler);
    const { handlers } = entry;
    await entry.first;
    return {
      async close() {
        handlers.delete(handler);
      },
    };
  };
}

/** Resolves when `p` settles either way, or after `ms`. */
async function settled(p: PromiseLike<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
  });
  try {
    await Promise.race([Promise.resolve(p).then(noop, noop), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

function noop(): void {}

/**
 * LISTEN on PGlite, its one session. The LISTEN and UNLISTEN go through Kysely's connection, which the
 * dialect hands out one caller at a time: issued beside it, they could land inside a transaction another
 * caller holds open, and take effect only at its commit (or never, on rollback). Nothing is lost here:
 * there is no connection to drop. `close` after the database closed is a no-op.
 */
export function pgliteListen(pglite: Pick<PGlite, "listen">, kysely: Kysely<Database>): Listen {
  return async (channel, onMessage, onListen) => {
    checkChannel(channel);
    let open = true;
    const deliver = (payload: string) => {
      if (open) call(() => onMessage(payload));
    };
    const unsubscribe = await kysely.connection().execute(() => pglite.listen(channel, deliver));
    call(onListen);
    return {
      async close() {
        if (!open) return;
        open = false;
        await kysely
          .connection()
          .execute(() => unsubscribe())
          .catch(noop);
      },
    };
  };
}
