import { createHash } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { Kysely, Migrator } from "kysely";
import { PGliteDialect } from "kysely-pglite-dialect";
import { inlineMigrations } from "./migrations/index.js";

// The sources' own directory, also under the bundle (build.mjs maps `import.meta.url` to the source).
const here = dirname(fileURLToPath(import.meta.url));
const migrationsDir = join(here, "migrations");
/** The checkout's node_modules/.cache (this file is apps/controller/src/db/pglite-template.ts). */
const cacheDir = join(here, "../../../../node_modules/.cache/vantage-pglite");

/**
 * The migrated PGlite template: a dump of an embedded data directory with every migration applied
 * (`PGlite.dumpDataDir`), kept in the checkout's node_modules/.cache and named by a hash of the migrations'
 * sources and PGlite's version, so a changed migration or another PGlite names a new one. A new embedded
 * database (`connectDb` on a data directory not made yet) starts from it instead of running initdb in WASM
 * and every migration: 5–7 s of CPU at a first start, paid again by every test that starts a controller on
 * a new data directory. The controller's build makes it (apps/controller/build.mjs); without it a new
 * database is made from scratch as before. The template holds the schema alone: the migrations write no
 * row of their own (data migrations copy existing rows), so nothing in it belongs to one installation.
 */
export function pgliteTemplateFile(): string {
  return join(cacheDir, `pglite-${templateKey()}.tar`);
}

/** The template's bytes, or undefined when it has not been made (or cannot be read). */
export function readPgliteTemplate(): Blob | undefined {
  try {
    return new Blob([readFileSync(pgliteTemplateFile())]);
  } catch {
    return undefined;
  }
}

/**
 * The template, made and written to the cache when it is not there yet. Written aside and renamed, so
 * processes making it at the same moment (test workers, a build) never read half of one.
 */
export async function makePgliteTemplate(): Promise<{ dump: Blob; file: string; made: boolean }> {
  const file = pgliteTemplateFile();
  const found = readPgliteTemplate();
  if (found) return { dump: found, file, made: false };
  const { PGlite } = await import("@electric-sql/pglite");
  const pglite = new PGlite("memory://");
  await pglite.waitReady;
  const kysely = new Kysely({ dialect: new PGliteDialect(pglite) });
  try {
    const { error } = await new Migrator({ db: kysely, provider: inlineMigrations }).migrateToLatest();
    if (error) throw error instanceof Error ? error : new Error(String(error));
    const dump = await pglite.dumpDataDir("none");
    mkdirSync(cacheDir, { recursive: true });
    const partial = `${file}.${process.pid}.partial`;
    try {
      writeFileSync(partial, new Uint8Array(await dump.arrayBuffer()));
      renameSync(partial, file);
    } catch (err) {
      rmSync(partial, { force: true });
      throw err;
    }
    return { dump, file, made: true };
  } finally {
    await kysely.destroy();
  }
}

let key: string | undefined;

/** The template's name: read and hashed once per process (the migrations do not change under it). */
function templateKey(): string {
  if (key === undefined) {
    const pgliteVersion = JSON.parse(
      readFileSync(join(here, "../../node_modules/@electric-sql/pglite/package.json"), "utf8"),
    ).version;
    key = migrationsKey(`pglite ${pgliteVersion}`);
  }
  return key;
}

/**
 * A short hash of every migration's name and source after `salt` (what else a template depends on): a
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

/** One member of a tar archive: its path as written, `file` or `dir`, and a file's bytes (a view, not a copy). */
interface TarMember {
  name: string;
  kind: "file" | "dir";
  data: Uint8Array;
}

/**
 * The members of a ustar archive (what `PGlite.dumpDataDir("none")` writes: plain files and directories),
 * or undefined unless the archive is whole: every member's header in its place, with the ustar magic, and
 * the end-of-archive block (zeros) reached inside the bytes. A cache file cut short or overwritten fails.
 * Another member type (a link, a device) counts as not whole: a data directory's dump holds none.
 */
function tarMembers(bytes: Uint8Array): TarMember[] | undefined {
  const decoder = new TextDecoder();
  const text = (header: Uint8Array, from: number, to: number) => {
    const field = header.subarray(from, to);
    const end = field.indexOf(0);
    return decoder.decode(end < 0 ? field : field.subarray(0, end));
  };
  const members: TarMember[] = [];
  let offset = 0;
  while (offset + 512 <= bytes.length) {
    const header = bytes.subarray(offset, offset + 512);
    if (header.every((b) => b === 0)) return offset > 0 ? members : undefined;
    if (text(header, 257, 262) !== "ustar") return undefined;
    const sizeField = text(header, 124, 136).trim();
    if (!/^[0-7]+$/.test(sizeField)) return undefined;
    const size = Number.parseInt(sizeField, 8);
    const type = String.fromCharCode(header[156] ?? 0);
    const kind = type === "5" ? "dir" : type === "0" || type === "\0" ? "file" : undefined;
    if (!kind || offset + 512 + size > bytes.length) return undefined;
    const prefix = text(header, 345, 500);
    const name = prefix ? `${prefix}/${text(header, 0, 100)}` : text(header, 0, 100);
    members.push({ name, kind, data: bytes.subarray(offset + 512, offset + 512 + size) });
    offset += 512 + Math.ceil(size / 512) * 512;
  }
  return undefined;
}

/** Whether `bytes` is a whole tar archive of files and directories (see `tarMembers`). */
export function isWholeTar(bytes: Uint8Array): boolean {
  return tarMembers(bytes) !== undefined;
}

/**
 * Writes a data directory's dump (`PGlite.dumpDataDir`) into `dir` with Node's own file calls, directories
 * 0700 and files 0600: 0.3 s for the 41 MB template, where PGlite's `loadDataDir` wrote it through its WASM
 * file system in 1.2 s of CPU (docs/benchmarks.md, twenty-first session). Throws on an archive that is not
 * whole or a member whose path leaves `dir`; what was written before is left for the caller to remove.
 */
export function extractDataDir(bytes: Uint8Array, dir: string): void {
  const members = tarMembers(bytes);
  if (!members) throw new Error("not a whole tar archive");
  const root = resolve(dir);
  mkdirSync(root, { recursive: true, mode: 0o700 });
  for (const m of members) {
    const path = resolve(root, `./${m.name}`);
    if (path !== root && !path.startsWith(`${root}${sep}`))
      throw new Error(`${m.name}: outside the data directory`);
    if (m.kind === "dir") mkdirSync(path, { recursive: true, mode: 0o700 });
    else {
      mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
      writeFileSync(path, m.data, { mode: 0o600 });
    }
  }
}
