import { createHash } from "node:crypto";
import { readdir, rm, stat } from "node:fs/promises";
import { join, resolve } from "node:path";
import { readCacheFile, writeAtomically } from "../ip/asn-cache.js";
import type { AddressSet } from "./address-set.js";
import type { AsnList } from "./asn-list.js";
import type { ReputationDatasetName, ReputationDatasets, ReputationParts } from "./datasets.js";

/** What opening the reputation data did with its cache, for the caller's log and for tests. */
export type ReputationCacheEvent =
  | { type: "reputation_cache_loaded"; cacheFile: string; ms: number }
  | { type: "reputation_compiled"; cacheFile: string; ms: number }
  | { type: "reputation_cache_unusable"; cacheFile: string; reason: string }
  | { type: "reputation_cache_write_failed"; cacheFile: string; reason: string };

const MAGIC = Buffer.from("VNTGREP\0", "latin1");
const BOM = 0x01020304;
/** Bump when the layout or the parsing rules change: old cache files are then ignored. */
export const REPUTATION_CACHE_FORMAT = 1;
/** Another directory's cache file untouched this long is removed when a new one is written. */
const STALE_MS = 24 * 3600_000;

const pad4 = (n: number) => (n + 3) & ~3;

/** One address set in the body: its name (a dataset, or `cloud_ranges/<provider>`) and word counts. */
interface SetEntry {
  name: string;
  entries: number;
  words: [number, number, number, number];
}

interface Header {
  /** The stat fingerprint of every file the data was read from (see `sourcesKey`). */
  sources: string;
  dir: string;
  versions: Record<string, string>;
  missing: ReputationDatasetName[];
  asns: { [K in "hosting_asns" | "vpn_asns"]?: [number, string | null][] };
  sets: SetEntry[];
  bodyBytes: number;
  sha256: string;
}

/** `reputation-<16 hex digits of the directory's path>-f<format>.bin`: one cache file per data directory. */
export function reputationCacheFile(cacheDir: string, dir: string): string {
  const id = createHash("sha256").update(resolve(dir)).digest("hex").slice(0, 16);
  return join(cacheDir, `reputation-${id}-f${REPUTATION_CACHE_FORMAT}.bin`);
}

/**
 * A fingerprint of the files `paths` names (relative to `dir`), by stat only: size, modification time and
 * inode, or `-` for an absent one. A file replaced or edited changes it, so the cache is not used.
 */
export async function sourcesKey(dir: string, paths: readonly string[]): Promise<string> {
  const parts = await Promise.all(
    paths.map(async (path) => {
      try {
        const s = await stat(join(dir, path));
        return `${path}:${s.size}:${Math.trunc(s.mtimeMs)}:${s.ino}`;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "ENOENT") return `${path}:-`;
        throw new Error(`cannot read ${join(dir, path)}: ${(error as Error).message}`);
      }
    }),
  );
  return parts.join("\n");
}

/**
 * The parts from the cache file when it was written for the same files (`sources`); otherwise `parse()`'s,
 * then written to the cache for the next start. A cache that cannot be read or written costs a parse,
 * nothing more: the event says why. `parse()`'s errors (a malformed file) reject as they are.
 */
export async function cachedReputationParts(
  cacheFile: string,
  sources: string,
  parse: () => Promise<ReputationParts>,
  onEvent: (event: ReputationCacheEvent) => void,
): Promise<ReputationParts> {
  const started = performance.now();
  const cached = await readCache(cacheFile, sources);
  if (cached.parts) {
    onEvent({ type: "reputation_cache_loaded", cacheFile, ms: performance.now() - started });
    return cached.parts;
  }
  if (cached.reason) onEvent({ type: "reputation_cache_unusable", cacheFile, reason: cached.reason });
  const parts = await parse();
  onEvent({ type: "reputation_compiled", cacheFile, ms: performance.now() - started });
  try {
    await writeAtomically(cacheFile, encodeReputationParts(parts, sources));
    await removeStale(cacheFile);
  } catch (error) {
    onEvent({ type: "reputation_cache_write_failed", cacheFile, reason: (error as Error).message });
  }
  return parts;
}

function setsOf(datasets: ReputationDatasets): [string, AddressSet][] {
  const sets: [string, AddressSet][] = [];
  for (const name of ["tor_exits", "datacenter_ranges", "vpn_ranges"] as const) {
    const set = datasets[name];
    if (set) sets.push([name, set]);
  }
  for (const [provider, set] of datasets.cloud_ranges ?? []) sets.push([`cloud_ranges/${provider}`, set]);
  return sets;
}

export function encodeReputationParts(parts: ReputationParts, sources: string): Buffer {
  const sets = setsOf(parts.datasets);
  const arrays: Uint32Array[] = [];
  const entries: SetEntry[] = sets.map(([name, set]) => {
    arrays.push(set.v4Start, set.v4End, set.v6Start, set.v6End);
    return {
      name,
      entries: set.entries,
      words: [set.v4Start.length, set.v4End.length, set.v6Start.length, set.v6End.length],
    };
  });
  const body = Buffer.concat(arrays.map((a) => Buffer.from(a.buffer, a.byteOffset, a.byteLength)));
  const asns: Header["asns"] = {};
  for (const name of ["hosting_asns", "vpn_asns"] as const) {
    const list = parts.datasets[name];
    if (list) asns[name] = [...list];
  }
  const header: Header = {
    sources,
    dir: parts.dir,
    versions: parts.versions,
    missing: parts.missing,
    asns,
    sets: entries,
    bodyBytes: body.length,
    sha256: createHash("sha256").update(body).digest("hex"),
  };
  const json = Buffer.from(JSON.stringify(header), "utf8");
  const words = Buffer.from(new Uint32Array([BOM, REPUTATION_CACHE_FORMAT, json.length]).buffer);
  return Buffer.concat([MAGIC, words, json, Buffer.alloc(pad4(json.length) - json.length), body]);
}

/** The parts a cache file holds; throws an Error saying what is wrong with it (any damage is caught). */
export function decodeReputationParts(file: Buffer): { parts: ReputationParts; sources: string } {
  const fail = (why: string): never => {
    throw new Error(why);
  };
  const fixed = MAGIC.length + 12;
  if (file.length < fixed || !file.subarray(0, MAGIC.length).equals(MAGIC)) fail("not a cache file");
  // Copied to an aligned buffer of its own: the Uint32Arrays below are views into it, and a worker
  // thread transfers them without copying.
  const buf = new Uint8Array(file.length);
  buf.set(file);
  const [bom, format, jsonLength] = new Uint32Array(buf.buffer, MAGIC.length, 3) as unknown as number[];
  if (bom !== BOM) fail("written on a machine of the other byte order");
  if (format !== REPUTATION_CACHE_FORMAT) fail(`format ${format}, expected ${REPUTATION_CACHE_FORMAT}`);
  if (fixed + (jsonLength as number) > buf.length) fail("truncated header");
  const header = JSON.parse(Buffer.from(buf.buffer, fixed, jsonLength).toString("utf8")) as Header;
  const bodyAt = fixed + pad4(jsonLength as number);
  if (!Array.isArray(header.sets) || bodyAt + header.bodyBytes !== buf.length) fail("truncated or padded");
  const digest = createHash("sha256").update(buf.subarray(bodyAt)).digest("hex");
  if (digest !== header.sha256) fail("its contents do not match their digest");
  let at = bodyAt;
  const take = (count: number) => {
    const view = new Uint32Array(buf.buffer, at, count);
    at += count * 4;
    return view;
  };
  const datasets: ReputationDatasets = {};
  const cloud = new Map<string, AddressSet>();
  for (const entry of header.sets) {
    const [a, b, c, d] = entry.words;
    if (a !== b || c !== d || c % 4 !== 0) fail(`set ${entry.name}: starts and ends differ in length`);
    const set: AddressSet = { v4Start: take(a), v4End: take(b), v6Start: take(c), v6End: take(d), ...entry };
    delete (set as Partial<SetEntry>).words;
    delete (set as Partial<SetEntry>).name;
    if (entry.name.startsWith("cloud_ranges/")) cloud.set(entry.name.slice("cloud_ranges/".length), set);
    else datasets[entry.name as "tor_exits" | "datacenter_ranges" | "vpn_ranges"] = set;
  }
  if (at !== buf.length) fail("its sets do not fill it");
  if (cloud.size > 0) datasets.cloud_ranges = cloud;
  for (const [name, rows] of Object.entries(header.asns)) {
    datasets[name as "hosting_asns" | "vpn_asns"] = new Map(rows) as AsnList;
  }
  return {
    parts: { dir: header.dir, datasets, versions: header.versions, missing: header.missing },
    sources: header.sources,
  };
}

async function readCache(
  file: string,
  sources: string,
): Promise<{ parts?: ReputationParts; reason?: string }> {
  const { bytes, reason } = await readCacheFile(file);
  if (!bytes) return reason ? { reason } : {};
  try {
    const decoded = decodeReputationParts(bytes);
    if (decoded.sources !== sources) return { reason: "the data files changed since it was written" };
    return { parts: decoded.parts };
  } catch (error) {
    return { reason: (error as Error).message };
  }
}

/**
 * Other directories' cache files (a test's temporary data, a directory an operator moved away from) not
 * written for a day: each is small, but they would pile up. One still in use is written again at its next
 * start.
 */
async function removeStale(keep: string): Promise<void> {
  const dir = join(keep, "..");
  const now = Date.now();
  for (const name of await readdir(dir)) {
    const path = join(dir, name);
    if (!name.startsWith("reputation-") || path === keep) continue;
    const s = await stat(path).catch(() => null);
    if (s && now - s.mtimeMs > STALE_MS) await rm(path, { force: true });
  }
}
