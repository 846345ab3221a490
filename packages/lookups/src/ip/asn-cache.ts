import { randomBytes } from "node:crypto";
import { mkdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { basename, join } from "node:path";
import { compileAsnTable } from "./asn-compile.js";
import { ASN_FORMAT_VERSION, type AsnTable, decodeAsnTable, encodeAsnTable } from "./asn-table.js";

/** What opening the IP data did, for the caller's log (and for tests to see whether a CSV was parsed). */
export type IpDataEvent =
  | { type: "asn_compiled"; cacheFile: string; ms: number; ranges: number }
  | { type: "asn_cache_loaded"; cacheFile: string; ms: number }
  | { type: "asn_cache_unusable"; cacheFile: string; reason: string }
  | { type: "asn_cache_write_failed"; cacheFile: string; reason: string };

export interface AsnSource {
  /** The data version: part of the cache file's name. */
  version: string;
  ipv4Csv: string;
  ipv6Csv: string;
  cacheDir: string;
  onEvent?: ((event: IpDataEvent) => void) | undefined;
}

export interface LoadedAsnTable {
  table: AsnTable;
  cacheFile: string;
  /** The table in the cache file's layout (what decodeAsnTable reads): the file read, or the one written. */
  bytes: Buffer;
}

/**
 * The ASN table of `source`: read from the cache file when one matches (same data version, same format,
 * same CSV sizes and modification times), else compiled from the CSVs and written there for next time.
 * A cache that cannot be written costs the next start a compile, nothing more; a bad CSV throws.
 */
export async function loadAsnTable(source: AsnSource): Promise<LoadedAsnTable> {
  const emit = source.onEvent ?? (() => {});
  const cacheFile = join(source.cacheDir, cacheFileName(source.version));
  // The version names the data, but an operator may replace the CSVs and forget to change it: their sizes
  // and times are checked too. stat only: the CSVs are never opened when the cache answers.
  const sources = (await Promise.all([source.ipv4Csv, source.ipv6Csv].map(fingerprint))).join(" ");
  const started = performance.now();
  const cached = await readCache(cacheFile, source.version, sources);
  if (cached.table && cached.bytes) {
    emit({ type: "asn_cache_loaded", cacheFile, ms: performance.now() - started });
    return { table: cached.table, cacheFile, bytes: cached.bytes };
  }
  if (cached.reason) emit({ type: "asn_cache_unusable", cacheFile, reason: cached.reason });

  const [v4, v6] = await Promise.all([readFile(source.ipv4Csv), readFile(source.ipv6Csv)]);
  const table = compileAsnTable(
    { name: basename(source.ipv4Csv), bytes: v4 },
    { name: basename(source.ipv6Csv), bytes: v6 },
  );
  emit({
    type: "asn_compiled",
    cacheFile,
    ms: performance.now() - started,
    ranges: table.v4Asn.length + table.v6Asn.length,
  });
  const bytes = encodeAsnTable(table, { version: source.version, sources });
  try {
    await writeAtomically(cacheFile, bytes);
  } catch (error) {
    emit({ type: "asn_cache_write_failed", cacheFile, reason: (error as Error).message });
  }
  return { table, cacheFile, bytes };
}

/** `asn-<version>-f<format>.bin`, the version reduced to characters safe in a file name. */
export function cacheFileName(version: string): string {
  return `asn-${version.replace(/[^A-Za-z0-9._+-]/g, "_")}-f${ASN_FORMAT_VERSION}.bin`;
}

async function fingerprint(path: string): Promise<string> {
  const s = await stat(path);
  return `${basename(path)}:${s.size}:${Math.trunc(s.mtimeMs)}`;
}

/** A compiled cache file's bytes; none and no reason when there is no file, a reason when it cannot be read. */
export async function readCacheFile(file: string): Promise<{ bytes?: Buffer; reason?: string }> {
  try {
    return { bytes: await readFile(file) };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return {};
    return { reason: (error as Error).message };
  }
}

async function readCache(
  file: string,
  version: string,
  sources: string,
): Promise<{ table?: AsnTable; bytes?: Buffer; reason?: string }> {
  const { bytes, reason } = await readCacheFile(file);
  if (!bytes) return reason ? { reason } : {};
  try {
    const { table, meta } = decodeAsnTable(bytes);
    if (meta.version !== version) return { reason: `built from ${meta.version}, not ${version}` };
    if (meta.sources !== sources) return { reason: "the CSV files changed since it was built" };
    return { table, bytes };
  } catch (error) {
    return { reason: (error as Error).message };
  }
}

/**
 * Readers see the old file or the whole new one, never a part: write aside, then rename over. Shared by the
 * data caches (this one, reputation/data-cache.ts).
 */
export async function writeAtomically(file: string, bytes: Buffer): Promise<void> {
  await mkdir(join(file, ".."), { recursive: true });
  const tmp = `${file}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
  try {
    await writeFile(tmp, bytes, { flush: true });
    await rename(tmp, file);
  } catch (error) {
    await rm(tmp, { force: true });
    throw error;
  }
}
