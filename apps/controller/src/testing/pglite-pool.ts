import type { PGlite } from "@electric-sql/pglite";
import { type Db, openPglite, type PgliteClient, pgliteDb } from "../db/connect.js";
import { migratedPgliteDump } from "./pglite-template.js";

/** Instances no test database holds now, in this process (a test worker runs file after file). */
const idle: PGlite[] = [];
/** Resets since the last CHECKPOINT, per instance: the WAL a single-session PGlite keeps is bounded by it. */
const resets = new WeakMap<PGlite, number>();
let tables: Promise<string> | undefined;

/**
 * An in-memory PGlite database, migrated and empty, for a test: lent from this process's pool, and given
 * back, emptied, by `close` or by the `Db`'s own `close` (a runtime started on it with `startRuntime`'s
 * `db` closes it when it stops). Opening one from the template costs about 1.2 s of CPU (the WebAssembly
 * PostgreSQL's start, the template's 40 MB unpacked), and test files opened about 170 in a run, and the
 * embedded runtimes (dashboards, CLI, MCP) about 35 more; emptying one costs a few milliseconds.
 *
 * What a borrower leaves is undone before the next one: its rows (every table but the migrations' own is
 * truncated, identities restarted), a transaction it left open, its LISTENs, session settings and advisory
 * locks. Once closed, its `Db` is refused ("this test database was closed"), as a closed PGlite refuses, so
 * a timer of an app the test did not stop cannot write into the next borrower's database.
 */
export async function lendPgliteDb(): Promise<{ db: Db; close(): Promise<void> }> {
  const pglite = idle.pop() ?? (await openPglite("memory://", await migratedPgliteDump(), undefined));
  let lent = true;
  const refused = () => Promise.reject(new Error("this test database was closed"));
  const unlisten: Array<() => Promise<void>> = [];
  const client: PgliteClient = {
    query: ((...args: Parameters<PGlite["query"]>) =>
      lent ? pglite.query(...args) : refused()) as PGlite["query"],
    listen: (async (...args: Parameters<PGlite["listen"]>) => {
      if (!lent) return refused();
      const off = await pglite.listen(...args);
      unlisten.push(off);
      return off;
    }) as PGlite["listen"],
    // The pool keeps the instance: `Db.close` ends the borrower's Kysely only.
    close: async () => {},
  };
  // The `Db`'s own close gives the instance back, so whatever closes it (a runtime's `stop`, the
  // borrower's `close`) returns it, once.
  let returned: Promise<void> | undefined;
  const db = pgliteDb(
    client,
    () =>
      (returned ??= (async () => {
        lent = false;
        await empty(pglite, unlisten);
        idle.push(pglite);
      })()),
  );
  return { db, close: () => db.close() };
}

async function empty(pglite: PGlite, unlisten: Array<() => Promise<void>>): Promise<void> {
  for (const off of unlisten.splice(0)) await off().catch(() => {});
  // A transaction the borrower left open (its app stopped in the middle of one) ends here.
  await pglite.exec("rollback");
  tables ??= pglite
    .query<{ name: string }>(
      `select format('%I.%I', schemaname, tablename) as name from pg_tables
       where schemaname = 'public' and tablename not like 'kysely_migration%'`,
    )
    .then((r) => r.rows.map((t) => t.name).join(", "));
  const n = (resets.get(pglite) ?? 0) + 1;
  resets.set(pglite, n % 20);
  await pglite.exec(
    `truncate ${await tables} restart identity cascade; reset all; select pg_advisory_unlock_all();` +
      (n % 20 === 0 ? " checkpoint;" : ""),
  );
}
