import { createHash } from "node:crypto";
import { readdir, readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { AddressSet } from "./address-set.js";
import { parseAsnList } from "./asn-list.js";
import {
  cachedReputationParts,
  type ReputationCacheEvent,
  reputationCacheFile,
  sourcesKey,
} from "./data-cache.js";
import {
  buildReputationData,
  isProviderName,
  parseAddressTexts,
  type ReputationData,
  type ReputationDatasetName,
  type ReputationDatasets,
  type ReputationParts,
  reputationDatasetNames,
} from "./datasets.js";

export type { ReputationParts };

/** The copy shipped with the package (data/reputation/: sources, dates and licences in its README). */
export const shippedReputationDir = fileURLToPath(new URL("../../data/reputation/", import.meta.url));

/**
 * Where each dataset lives in a data directory: the layout of the upstream repositories (Tor:
 * SecOps-Institute/Tor-IP-Addresses; hosting and VPN: X4BNet/lists_vpn; cloud: lord-alfred/ipranges, one
 * directory per provider). A range dataset may have one of its two files; Oracle publishes no IPv6.
 */
export const REPUTATION_DATA_FILES = {
  tor_exits: ["tor/tor-exit-nodes.lst"],
  hosting_asns: ["hosting-vpn/input/datacenter/ASN.txt"],
  vpn_asns: ["hosting-vpn/input/vpn/ASN.txt"],
  datacenter_ranges: ["hosting-vpn/output/datacenter/ipv4.txt", "hosting-vpn/output/datacenter/ipv6.txt"],
  vpn_ranges: ["hosting-vpn/output/vpn/ipv4.txt", "hosting-vpn/output/vpn/ipv6.txt"],
  cloud_ranges: ["cloud-ranges/<provider>/ipv4_merged.txt", "cloud-ranges/<provider>/ipv6_merged.txt"],
} as const satisfies Record<ReputationDatasetName, readonly string[]>;

/**
 * The data dates, one line per dataset (cloud ranges per provider): `<key> <date> <fingerprint>`, e.g.
 * `tor_exits 2024-02-27 3f1c…`. A date is used only while the fingerprint (datasetFingerprints) still
 * matches the files, so a file replaced without updating VERSIONS falls back to its modification time
 * rather than carrying the old date.
 */
export const REPUTATION_VERSIONS_FILE = "VERSIONS";

const VERSION_TEXT = /^[A-Za-z0-9][A-Za-z0-9._:+-]{0,63}$/;

/** Whether `version` is usable as a dataset version: letters, digits, `.`, `_`, `:`, `+`, `-`; at most 64. */
export function isVersionText(version: string): boolean {
  return VERSION_TEXT.test(version);
}

export interface OpenReputationDataOptions {
  /** A directory in the REPUTATION_DATA_FILES layout; the shipped copy when omitted. */
  dir?: string | undefined;
  /**
   * Reloads (ReputationDataHolder.reload) read and compile the files on a worker thread, which hands the
   * compiled tables over (their typed arrays transferred, not copied).
   */
  offThread?: boolean | undefined;
  /**
   * Where the compiled datasets are kept between starts (one file per data directory, keyed on its files'
   * sizes and times): a start whose files have not changed reads that instead of parsing 1.3 MB of text.
   * None when omitted.
   */
  cacheDir?: string | undefined;
  /** What the cache did (loaded, compiled, unusable and why, not written and why). */
  onEvent?: ((event: ReputationCacheEvent) => void) | undefined;
}

interface DataFile {
  /** Relative to the data directory, as in REPUTATION_DATA_FILES. */
  path: string;
  text: string;
  mtimeMs: number;
}

/** Per version key (a dataset name, or `cloud_ranges/<provider>`), the files found for it. */
type Found = Map<string, DataFile[]>;

/**
 * Reads and compiles every dataset found in the directory. A dataset none of whose files exist is listed
 * in `missing` (its signals are then reported unavailable); rejects when none exists at all, or when a file
 * is unreadable, empty or not in its format (the Error names the file and line).
 */
export async function openReputationData(options: OpenReputationDataOptions = {}): Promise<ReputationData> {
  return buildReputationData(await readReputationParts(options));
}

/** openReputationData's reading and compiling, without the wrapping (done on a reload's worker thread). */
export async function readReputationParts(options: OpenReputationDataOptions = {}): Promise<ReputationParts> {
  const dir = options.dir ?? shippedReputationDir;
  if (options.cacheDir === undefined) return parseReputationDir(dir);
  const sources = await sourcesKey(dir, [
    REPUTATION_VERSIONS_FILE,
    ...(await candidatePaths(dir)).flatMap(([, p]) => p),
  ]);
  return cachedReputationParts(
    reputationCacheFile(options.cacheDir, dir),
    sources,
    () => parseReputationDir(dir),
    options.onEvent ?? (() => {}),
  );
}

async function parseReputationDir(dir: string): Promise<ReputationParts> {
  const [found, recorded] = await Promise.all([findFiles(dir), readVersionsFile(dir)]);
  const datasets: ReputationDatasets = {};
  const versions: Record<string, string> = {};
  const missing: ReputationDatasetName[] = [];
  const label = (file: DataFile) => join(dir, file.path);
  for (const name of reputationDatasetNames) {
    if (name === "cloud_ranges") continue;
    const files = found.get(name);
    if (!files) {
      missing.push(name);
      continue;
    }
    if (name === "hosting_asns" || name === "vpn_asns") {
      datasets[name] = parseAsnList((files[0] as DataFile).text, label(files[0] as DataFile));
    } else {
      const texts = files.map((f) => ({ text: f.text, label: label(f) }));
      datasets[name] = parseAddressTexts(texts, name !== "tor_exits");
    }
    versions[name] = versionOf(name, files, recorded);
  }
  const cloud = new Map<string, AddressSet>();
  for (const [key, files] of found) {
    if (!key.startsWith("cloud_ranges/")) continue;
    const texts = files.map((f) => ({ text: f.text, label: label(f) }));
    cloud.set(key.slice("cloud_ranges/".length), parseAddressTexts(texts, true));
    versions[key] = versionOf(key, files, recorded);
  }
  if (cloud.size > 0) datasets.cloud_ranges = cloud;
  else missing.push("cloud_ranges");
  if (missing.length === reputationDatasetNames.length) {
    throw new Error(`no reputation data in ${dir}: none of the files of REPUTATION_DATA_FILES exists`);
  }
  return { dir, datasets, versions, missing };
}

/**
 * Per version key, the fingerprint VERSIONS records: the first 16 hex digits of a SHA-256 over each file's
 * path and text (line ends normalised to LF, so a checkout with CRLF matches too). A maintainer updating the
 * shipped data writes these with the data's date; reputation/data.test.ts says which lines are stale.
 */
export async function datasetFingerprints(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const [key, files] of await findFiles(dir)) out[key] = fingerprint(files);
  return out;
}

function fingerprint(files: readonly DataFile[]): string {
  const hash = createHash("sha256");
  for (const file of files) hash.update(`${file.path}\n${file.text.replaceAll("\r\n", "\n")}\n`);
  return hash.digest("hex").slice(0, 16);
}

/**
 * The recorded date while the files are the ones it was recorded for; else the newest file's modification
 * time (ISO 8601, seconds): when the files were fetched or written, which is what an operator's refresh
 * job tells us.
 */
function versionOf(key: string, files: readonly DataFile[], recorded: Map<string, Recorded>): string {
  const entry = recorded.get(key);
  if (entry && entry.fingerprint === fingerprint(files)) return entry.version;
  const newest = Math.max(...files.map((f) => f.mtimeMs));
  return `${new Date(newest).toISOString().slice(0, 19)}Z`;
}

/** Per version key, the files it may be read from (cloud ranges: per provider directory found). */
async function candidatePaths(dir: string): Promise<[string, string[]][]> {
  const wanted: [string, string[]][] = [];
  for (const name of reputationDatasetNames) {
    if (name !== "cloud_ranges") wanted.push([name, [...REPUTATION_DATA_FILES[name]]]);
  }
  for (const provider of await cloudProviders(dir)) {
    const paths = REPUTATION_DATA_FILES.cloud_ranges.map((p) => p.replace("<provider>", provider));
    wanted.push([`cloud_ranges/${provider}`, paths]);
  }
  return wanted;
}

async function findFiles(dir: string): Promise<Found> {
  const found: Found = new Map();
  const read = await Promise.all(
    (await candidatePaths(dir)).map(async ([key, paths]) => {
      const files = await Promise.all(paths.map((path) => readDataFile(dir, path)));
      return [key, files.filter((f) => f !== null)] as const;
    }),
  );
  for (const [key, files] of read) if (files.length > 0) found.set(key, files);
  return found;
}

/** The provider directories under cloud-ranges/, sorted; none when it does not exist. */
async function cloudProviders(dir: string): Promise<string[]> {
  const cloudDir = join(dir, "cloud-ranges");
  try {
    const entries = await readdir(cloudDir, { withFileTypes: true });
    return entries
      .filter((e) => e.isDirectory() && isProviderName(e.name))
      .map((e) => e.name)
      .sort();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw new Error(`cannot read ${cloudDir}: ${(error as Error).message}`);
  }
}

async function readDataFile(dir: string, path: string): Promise<DataFile | null> {
  const full = join(dir, path);
  try {
    const [text, info] = await Promise.all([readFile(full, "utf8"), stat(full)]);
    return { path, text, mtimeMs: info.mtimeMs };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw new Error(`cannot read ${full}: ${(error as Error).message}`);
  }
}

interface Recorded {
  version: string;
  fingerprint: string;
}

/** VERSIONS, when the directory has one: key → date and fingerprint. Rejects on a malformed line. */
async function readVersionsFile(dir: string): Promise<Map<string, Recorded>> {
  const path = join(dir, REPUTATION_VERSIONS_FILE);
  const recorded = new Map<string, Recorded>();
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return recorded;
    throw new Error(`cannot read ${path}: ${(error as Error).message}`);
  }
  for (const [i, raw] of text.split("\n").entries()) {
    const line = raw.replace(/#.*/, "").trim();
    if (line === "") continue;
    const [key = "", version = "", print = "", ...rest] = line.split(/\s+/);
    if (rest.length > 0 || !isVersionText(version) || !/^[0-9a-f]{16}$/.test(print)) {
      throw new Error(
        `${path}:${i + 1}: expected "<dataset> <date> <16 hex digits>", found ${JSON.stringify(raw)}`,
      );
    }
    recorded.set(key, { version, fingerprint: print });
  }
  return recorded;
}
