import { adminUrl } from "@vantage/testing";
import postgres from "postgres";
import { connectDb, migrate } from "../db/connect.js";
import { migrationsKey } from "../db/pglite-template.js";

/** The advisory lock the test processes take while one of them makes the template (any fixed number). */
const TEMPLATE_LOCK = 7_146_001;

let made: Promise<string> | undefined;

/**
 * The name of a database on the test PostgreSQL server with every migration applied, for
 * `createTestDatabase({ template })`: a copy of it costs a fraction of the migrations, which every test
 * file opening a PostgreSQL database used to run. Made once per server by whichever test process comes
 * first (the others wait on an advisory lock and find it made), named by a hash of the migrations'
 * sources, so a changed migration makes a new one. It is built under another name and renamed when
 * complete, so a run stopped half-way leaves no half-migrated template behind. The test databases still
 * run `migrate` after the copy (a no-op when the template is current).
 */
export function migratedPgTemplate(): Promise<string> {
  made ??= make();
  return made;
}

async function make(): Promise<string> {
  const name = `vt_tpl_${migrationsKey("postgres")}`;
  const admin = postgres(adminUrl(), { max: 1, onnotice: () => {}, connect_timeout: 5 });
  try {
    await admin`select pg_advisory_lock(${TEMPLATE_LOCK})`;
    const found = await admin`select 1 from pg_database where datname = ${name}`;
    if (found.length > 0) return name;
    const building = `${name}_${process.pid}`;
    await admin.unsafe(`drop database if exists ${building} with (force)`);
    await admin.unsafe(`create database ${building}`);
    const url = new URL(adminUrl());
    url.pathname = `/${building}`;
    const db = await connectDb({ databaseUrl: url.toString(), dataDir: "unused", maxConnections: 1 });
    try {
      await migrate(db);
    } finally {
      await db.close();
    }
    // A rename needs nobody connected: a session still closing is ended, and the rename tried again.
    await admin.unsafe(`alter database ${building} rename to ${name}`).catch(async () => {
      await admin`select pg_terminate_backend(pid) from pg_stat_activity where datname = ${building}`;
      await admin.unsafe(`alter database ${building} rename to ${name}`);
    });
    return name;
  } finally {
    await admin`select pg_advisory_unlock(${TEMPLATE_LOCK})`.catch(() => {});
    await admin.end();
  }
}
