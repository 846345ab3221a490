import { existsSync, readdirSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import type { PGlite } from "@electric-sql/pglite";
import { Kysely, Migrator, sql } from "kysely";
import { PGliteDialect } from "kysely-pglite-dialect";
import type { Logger } from "pino";
import postgres from "postgres";
import { holdPrivateUmask, makePrivateDir, stripGroupOther } from "../lib/data-dir.js";
import { AvailabilityGate, guardedDialect } from "./availability.js";
import { type Listen, pgliteListen, postgresListen } from "./listen.js";
import { inlineMigrations } from "./migrations/index.js";
import { extractDataDir, isWholeTar, readPgliteTemplate } from "./pglite-template.js";
import { InFlight, postgresDialect } from "./postgres-dialect.js";
import type { Database } from "./schema.js";

export interface Db {
  readonly kysely: Kysely<Database>;
  readonly kind: "postgres" | "pglite";
  /** False while PostgreSQL is known to be away (requests fail fast); PGlite is always available. */
  readonly available: boolean;
  /** True once migrations have run in this process. */
  migrated: boolean;
  ping(): Promise<void>;
  /**
   * LISTEN on `channel` (lower-case letters, digits and `_`): `onMessage` gets the payload of every NOTIFY
   * on it (`db/notify.ts`) until `close`. PostgreSQL: one connection per process carries every channel and
   * comes back by itself after it drops (PostgreSQL restarted, the backend killed); what is sent while it
   * is down is lost, so `onListen` runs whenever a LISTEN has just succeeded (after each reconnection in
   * particular) for the caller to make up for it. The promise does not reject because the database is
   * away: it resolves once the first LISTEN has been answered or has failed (then it is retried until it
   * succeeds), so a controller starting during an outage still starts. PGlite: the one session listens,
   * nothing is lost. A handler that throws is ignored; `close` ends only the handlers of its own call.
   */
  listen(
    channel: string,
    onMessage: (payload: string) => void,
    onListen?: () => void,
  ): Promise<{ close(): Promise<void> }>;
  close(): Promise<void>;
}

export interface DbOptions {
  databaseUrl?: string | undefined;
  /** PGlite data directory; `memory://` keeps everything in memory (tests). */
  dataDir: string;
  maxConnections?: number;
  /** PostgreSQL: how long a connection attempt may take before it counts as failed (the database away). */
  connectTimeoutMs?: number;
  /** PostgreSQL: the longest any query or transaction step may wait for an answer (0: no limit). */
  queryTimeoutMs?: number;
  /** PostgreSQL: told when the database goes away and comes back (for the log). */
  onAvailabilityChange?: (up: boolean, err?: unknown) => void;
  /**
   * PGlite, a new database (in memory, or a data directory not made yet): start from this dump of a data
   * directory (`PGlite.dumpDataDir`) instead of running initdb, which takes seconds of CPU. Without it, the
   * migrated template the build made (db/pglite-template.ts) when there is one.
   */
  pgliteDump?: Blob;
  /** PGlite: its buffer cache in MB (`VANTAGE_PGLITE_CACHE_MB`; PGLITE_CACHE_MB_DEFAULT unless given). */
  pgliteCacheMb?: number | undefined;
  /** PGlite: told when the data directory was readable by others and has been made private. */
  log?: Pick<Logger, "warn">;
}

/** Files the controller itself keeps in the data directory (accounts/jwt-secret.ts, lib/secret-key.ts). */
const DATA_DIR_FILES = ["jwt-secret", "secret-key"];

export async function connectDb(opts: DbOptions): Promise<Db> {
  if (opts.databaseUrl) {
    const client = postgres(opts.databaseUrl, {
      max: opts.maxConnections ?? 10,
      onnotice: () => {},
      connect_timeout: (opts.connectTimeoutMs ?? 2000) / 1000,
      // postgres.js backs off up to 20 s between reconnection attempts by default, and queries queue
      // behind them: after a long outage requests were held for many seconds. Retry every ≤ 0.5 s instead.
      backoff: (retries: number) => Math.min(0.05 * 2 ** retries, 0.5),
    });
    // postgres.js loads the array types on every new connection, and the promise of that query is not
    // awaited: a connection closed in that moment (PostgreSQL stopping while the pool reconnects) became an
    // unhandled rejection, which ends a Node process. Load them once, on the first connection that works;
    // later connections reuse them.
    const typesLoaded = () => {
      (client.options as { fetch_types: boolean }).fetch_types = false;
    };
    const inFlight = new InFlight(opts.queryTimeoutMs ?? 15_000);
    const connectTimeoutMs = opts.connectTimeoutMs ?? 2000;
    const gate = new AvailabilityGate({
      probeEveryMs: 500,
      onChange: (up, err) => {
        if (up) typesLoaded();
        // What was waiting on the database when it went away gets two connection attempts' time, then ends.
        else inFlight.abandon(err, 2 * connectTimeoutMs);
        opts.onAvailabilityChange?.(up, err);
      },
    });
    try {
      await client.unsafe("select 1");
      typesLoaded();
    } catch (err) {
      // Away at start (the runtime's migrations will say so); the first query that works loads the types.
      gate.markDown(err);
    }
    const dialect = guardedDialect(postgresDialect(client, inFlight), gate);
    // The first LISTEN gets two connection attempts' time before `listen` stops waiting for it.
    const listen = postgresListen(client, 2 * connectTimeoutMs);
    return makeDb(new Kysely<Database>({ dialect }), "postgres", listen, gate);
  }
  let location = opts.dataDir;
  let umask: ReturnType<typeof holdPrivateUmask> | undefined;
  if (!location.startsWith("memory://")) {
    const root = resolve(location);
    location = join(root, "pgdata");
    makePrivateDir(location);
    securePgliteDataDir(root, opts.log);
    umask = holdPrivateUmask();
  }
  const fresh = location.startsWith("memory://") || !existsSync(resolve(location, "PG_VERSION"));
  const pglite = await openPglite(
    location,
    fresh ? (opts.pgliteDump ?? readPgliteTemplate()) : undefined,
    opts.log,
    opts.pgliteCacheMb,
  );
  // Where the umask cannot be set (a worker thread), the files PGlite made are made private by hand.
  const pgdata = location;
  const fixModes = () => {
    if (umask && !umask.held) stripGroupOther(pgdata, true);
  };
  fixModes();
  return pgliteDb(pglite, () => {
    fixModes();
    umask?.release();
  });
}

/**
 * The database a configuration names, as `connectDb` takes it: PostgreSQL, or PGlite in the data directory
 * with the configured cache. One mapping for the runtime and every command-line tool, so a setting added
 * here reaches them all.
 */
export function configuredDb(config: {
  DATABASE_URL?: string | undefined;
  VANTAGE_DATA_DIR: string;
  VANTAGE_PGLITE_CACHE_MB: number;
}): Pick<DbOptions, "databaseUrl" | "dataDir" | "pgliteCacheMb"> {
  return {
    databaseUrl: config.DATABASE_URL,
    dataDir: config.VANTAGE_DATA_DIR,
    pgliteCacheMb: config.VANTAGE_PGLITE_CACHE_MB,
  };
}

/** What a `Db` over PGlite uses of it: its queries, LISTEN, and `close` (which `Db.close` calls). */
export type PgliteClient = Pick<PGlite, "query" | "listen" | "close">;

/**
 * A `Db` over an open PGlite (or a stand-in with its `query`, `listen` and `close`: the test databases'
 * pool lends one instance to file after file, testing/test-app.ts). `close` closes the client.
 */
export function pgliteDb(client: PgliteClient, onClose?: () => void | Promise<void>): Db {
  const kysely = new Kysely<Database>({ dialect: new PGliteDialect(client as PGlite) });
  return makeDb(kysely, "pglite", pgliteListen(client, kysely), undefined, onClose);
}

/**
 * PGlite's buffer cache in MB (PostgreSQL's `shared_buffers`; 128 MB in the configuration its initdb writes)
 * unless `VANTAGE_PGLITE_CACHE_MB` says otherwise. PGlite sets up the whole cache in its WASM memory at every
 * start: 128 MB took 1.4–1.5 s of CPU to open a database and 290 MB of memory, 32 MB 1.2 s and 200 MB. What
 * it does not hold is read through the file system (the OS's page cache): the same speed while the data
 * read again and again fits, 2.8× slower index reads of a 100 MB working set (docs/operations.md).
 */
export const PGLITE_CACHE_MB_DEFAULT = 32;

/**
 * PGlite on `location`; a new one (`dump` given) loaded from the dump instead of made by initdb. A dump that
 * does not load (a damaged cache file) is logged and left aside: the directory, new and ours, is emptied
 * and the database made from scratch, as without a template.
 */
export async function openPglite(
  location: string,
  dump: Blob | undefined,
  log: DbOptions["log"],
  cacheMb: number = PGLITE_CACHE_MB_DEFAULT,
): Promise<PGlite> {
  // PGlite reads a tar it cannot parse as gzip, and that read's error escapes as an unhandled rejection:
  // an incomplete archive never reaches it.
  if (dump && !(await isWholeDump(dump))) {
    const message =
      "the migrated database template is not a whole tar archive; making the database from scratch";
    if (log) log.warn({ bytes: dump.size }, message);
    else process.emitWarning(message);
    dump = undefined;
  }
  // Loaded here, not with this module: a controller on PostgreSQL never needs PGlite's 80 ms of loading.
  const { PGlite } = await import("@electric-sql/pglite");
  const startParams = [...PGlite.defaultStartParams, "-c", `shared_buffers=${cacheMb}MB`];
  if (dump) {
    try {
      // A data directory on disk: the dump written by Node's file calls, then opened as an existing one.
      if (!location.startsWith("memory://"))
        extractDataDir(new Uint8Array(await dump.arrayBuffer()), location);
      const loaded = location.startsWith("memory://")
        ? new PGlite({ dataDir: location, loadDataDir: dump, startParams })
        : new PGlite({ dataDir: location, startParams });
      await loaded.waitReady;
      return loaded;
    } catch (err) {
      const message = "the migrated database template did not load; making the database from scratch";
      if (log) log.warn({ err }, message);
      else process.emitWarning(`${message}: ${String(err)}`);
      if (!location.startsWith("memory://")) emptyDir(resolve(location));
    }
  }
  const pglite = new PGlite({ dataDir: location, startParams });
  await pglite.waitReady;
  return pglite;
}

/**
 * The embedded data directory is the owner's alone (0700, files 0600), as PostgreSQL requires of its own.
 * An existing one that others can read (made by an older version, or by hand) is fixed at start with a
 * warning instead of refused: the directory itself, the PGlite cluster under it and the controller's own
 * files; other files someone put there are left as they are (the directory's 0700 already hides them).
 */
function securePgliteDataDir(root: string, log: DbOptions["log"]): void {
  const fixed = [
    ...stripGroupOther(root, false),
    ...stripGroupOther(join(root, "pgdata"), true),
    ...DATA_DIR_FILES.flatMap((name) => stripGroupOther(join(root, name), false)),
  ];
  if (fixed.length === 0) return;
  const message =
    "the data directory was readable by other users: removed group and other permissions (directories 0700, files 0600)";
  if (log) log.warn({ data_dir: root, fixed: fixed.length, first: fixed.slice(0, 5) }, message);
  else process.emitWarning(`${message}: ${fixed.length} paths under ${root}`);
}

function makeDb(
  kysely: Kysely<Database>,
  kind: Db["kind"],
  listen: Listen,
  gate?: AvailabilityGate,
  onClose?: () => void | Promise<void>,
): Db {
  return {
    kysely,
    kind,
    get available() {
      return gate?.available ?? true;
    },
    migrated: false,
    async ping() {
      await sql`select 1`.execute(kysely);
    },
    listen,
    async close() {
      try {
        await kysely.destroy();
      } finally {
        await onClose?.();
      }
    },
  };
}

/**
 * Runs every pending migration. Safe when several controllers start at once (advisory lock). A database
 * that already has every migration is told by two short reads (the migrations table's presence, its names)
 * without the migrator's table checks and lock: on a new PGlite session those took about 0.3 s of a start.
 */
export async function migrate(db: Db): Promise<string[]> {
  if (await allApplied(db)) {
    db.migrated = true;
    return [];
  }
  const migrator = new Migrator({ db: db.kysely, provider: inlineMigrations });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  db.migrated = true;
  return (results ?? []).filter((r) => r.status === "Success").map((r) => r.migrationName);
}

/**
 * Whether the migrations table lists exactly the migrations this build has (false when there is no table;
 * a database with a migration this build does not know goes through the migrator, which refuses it).
 */
async function allApplied(db: Db): Promise<boolean> {
  const table = await sql<{ present: boolean }>`
    select to_regclass('kysely_migration') is not null as present`.execute(db.kysely);
  if (!table.rows[0]?.present) return false;
  const { rows } = await sql<{ name: string }>`select name from kysely_migration`.execute(db.kysely);
  const applied = new Set(rows.map((r) => r.name));
  const known = Object.keys(await inlineMigrations.getMigrations());
  return applied.size === known.length && known.every((name) => applied.has(name));
}

/**
 * Dumps already checked in this process: the test databases load one dump object each time, and checking
 * it meant copying its 40 MB again for every database.
 */
const wholeDumps = new WeakSet<Blob>();

async function isWholeDump(dump: Blob): Promise<boolean> {
  if (wholeDumps.has(dump)) return true;
  const whole = isWholeTar(new Uint8Array(await dump.arrayBuffer()));
  if (whole) wholeDumps.add(dump);
  return whole;
}

/** Removes everything inside `dir`, keeping the directory itself (and its mode). */
function emptyDir(dir: string): void {
  for (const name of readdirSync(dir)) rmSync(join(dir, name), { recursive: true, force: true });
}
