import { createHash } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { PGlite } from "@electric-sql/pglite";
import { Kysely, Migrator } from "kysely";
import { PGliteDialect } from "kysely-pglite-dialect";
import { inlineMigrations } from "../db/migrations/index.js";

const here = dirname(fileURLToPath(import.meta.url));
const migrationsDir = join(here, "../db/migrations");
const cacheDir = join(here, "../../../../node_modules/.cache/vantage-test");

let loaded: Promise<Blob> | undefined;

/**
 * A dump of a PGlite data directory with every migration applied, for `connectDb({pgliteDump})`. initdb in
 * WASM plus the migrations cost 5–7 s of CPU per database, paid by every test file that opens one; the dump
 * loads in well under a second. It is made once and kept in node_modules/.cache, named by a hash of the
 * migrations' sources and PGlite's version, so a changed migration makes a new one. The test databases
 * still run `migrate` after loading it (a no-op when the dump is current).
 */
export function migratedPgliteDump(): Promise<Blob> {
  loaded ??= load();
  return loaded;
}

async function load(): Promise<Blob> {
  const file = join(cacheDir, `pglite-${key()}.tar`);
  try {
    return new Blob([readFileSync(file)]);
  } catch {
    // Not made yet: made below.
  }
  const pglite = new PGlite("memory://");
  await pglite.waitReady;
  const kysely = new Kysely({ dialect: new PGliteDialect(pglite) });
  const { error } = await new Migrator({ db: kysely, provider: inlineMigrations }).migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  const dump = await pglite.dumpDataDir("none");
  await kysely.destroy();
  // Written aside and renamed: test files in other processes may make it at the same moment.
  mkdirSync(cacheDir, { recursive: true });
  const partial = `${file}.${process.pid}.partial`;
  writeFileSync(partial, new Uint8Array(await dump.arrayBuffer()));
  renameSync(partial, file);
  return dump;
}

function key(): string {
  const pgliteVersion = JSON.parse(
    readFileSync(join(here, "../../node_modules/@electric-sql/pglite/package.json"), "utf8"),
  ).version;
  return migrationsKey(`pglite ${pgliteVersion}`);
}

/**
 * A short hash of every migration's name and source after `salt` (what else the template depends on): a
 * migrated template named by it is current, and a changed migration names a new one.
 */
export function migrationsKey(salt: string): string {
  const hash = createHash("sha256");
  hash.update(`${salt}\n`);
  for (const name of readdirSync(migrationsDir).sort()) {
    hash.update(`${name}\n`);
    hash.update(readFileSync(join(migrationsDir, name)));
  }
  return hash.digest("hex").slice(0, 16);
}
