import { randomBytes } from "node:crypto";
import { createRequire } from "node:module";
import postgres from "postgres";
import { runWithOwner } from "./owner-watch.js";

/**
 * The server the integration tests use: `VANTAGE_TEST_PG_URL` (set by scripts/test.sh, which starts a
 * throw-away cluster when the machine has none), else the machine's PostgreSQL on 127.0.0.1:5432.
 */
export function adminUrl(): string {
  return process.env.VANTAGE_TEST_PG_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
}

export interface TestDatabase {
  url: string;
  name: string;
  drop(): Promise<void>;
}

/** `node -e dropScript <postgres.js> <admin url> <name>`: what the owner watch runs for a test database left behind. */
const dropScript = `const sql = require(process.argv[1])(process.argv[2], { max: 1, onnotice() {}, connect_timeout: 5 });
sql.unsafe("drop database if exists " + process.argv[3] + " with (force)").catch(() => {}).finally(() => sql.end());`;

/**
 * Creates a fresh, uniquely named database so test files never see each other's rows; with `template`, a
 * copy of that database (e.g. one already migrated: a copy costs a fraction of running the migrations).
 */
export async function createTestDatabase(opts: { template?: string } = {}): Promise<TestDatabase> {
  const admin = postgres(adminUrl(), { max: 1, onnotice: () => {}, connect_timeout: 5 });
  const name = `vt_${randomBytes(6).toString("hex")}`;
  try {
    await admin.unsafe(`create database ${name}${opts.template ? ` template ${opts.template}` : ""}`);
  } catch (err) {
    await admin.end();
    throw new Error(
      `cannot create a test database on ${adminUrl()} (${String(err)}); run the tests with \`pnpm test\`, ` +
        "which starts PostgreSQL when the machine has none, or set VANTAGE_TEST_PG_URL",
    );
  }
  // Dropped by the owner watch if this process ends without `drop` (a run cut short).
  const forget = runWithOwner([
    process.execPath,
    "-e",
    dropScript,
    createRequire(import.meta.url).resolve("postgres"),
    adminUrl(),
    name,
  ]);
  const url = new URL(adminUrl());
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    name,
    async drop() {
      forget();
      try {
        await admin.unsafe(`drop database if exists ${name} with (force)`);
      } finally {
        await admin.end();
      }
    },
  };
}
