import { mkdirSync } from "node:fs";
import { resolve } from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { Kysely, Migrator, sql } from "kysely";
import { PGliteDialect } from "kysely-pglite-dialect";
import { PostgresJSDialect } from "kysely-postgres-js";
import postgres from "postgres";
import { inlineMigrations } from "./migrations/index.js";
import type { Database } from "./schema.js";

export interface Db {
  readonly kysely: Kysely<Database>;
  readonly kind: "postgres" | "pglite";
  /** True once migrations have run in this process. */
  migrated: boolean;
  ping(): Promise<void>;
  close(): Promise<void>;
}

export interface DbOptions {
  databaseUrl?: string | undefined;
  /** PGlite data directory; `memory://` keeps everything in memory (tests). */
  dataDir: string;
  maxConnections?: number;
}

export async function connectDb(opts: DbOptions): Promise<Db> {
  if (opts.databaseUrl) {
    const client = postgres(opts.databaseUrl, {
      max: opts.maxConnections ?? 10,
      onnotice: () => {},
      connect_timeout: 10,
    });
    const kysely = new Kysely<Database>({ dialect: new PostgresJSDialect({ postgres: client }) });
    return makeDb(kysely, "postgres");
  }
  let location = opts.dataDir;
  if (!location.startsWith("memory://")) {
    const dir = resolve(location, "pgdata");
    mkdirSync(dir, { recursive: true });
    location = dir;
  }
  const pglite = new PGlite(location);
  await pglite.waitReady;
  const kysely = new Kysely<Database>({ dialect: new PGliteDialect(pglite) });
  return makeDb(kysely, "pglite");
}

function makeDb(kysely: Kysely<Database>, kind: Db["kind"]): Db {
  return {
    kysely,
    kind,
    migrated: false,
    async ping() {
      await sql`select 1`.execute(kysely);
    },
    async close() {
      await kysely.destroy();
    },
  };
}

/** Runs every pending migration. Safe when several controllers start at once (advisory lock). */
export async function migrate(db: Db): Promise<string[]> {
  const migrator = new Migrator({ db: db.kysely, provider: inlineMigrations });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  db.migrated = true;
  return (results ?? []).filter((r) => r.status === "Success").map((r) => r.migrationName);
}
