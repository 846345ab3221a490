import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { runOffThread } from "../worker/off-thread.js";
import { ipv6Words, parseIpv4, parseIpv6 } from "./address.js";
import { type IpDataEvent, loadAsnTable } from "./asn-cache.js";
import { type AsnBuckets, type AsnTable, decodeAsnTable, findV4Row, findV6Row } from "./asn-table.js";
import { type CountryReader, type CountryTops, openCountryReader } from "./country.js";
import type { IpDataSource } from "./schema.js";

export type { IpDataEvent } from "./asn-cache.js";

/**
 * What a data directory (the operator's VANTAGE_IP_DATA_DIR) must hold: the combined country MMDB of
 * @ip-location-db/geo-whois-asn-country-mmdb, the two ASN CSVs of @ip-location-db/asn (not the `-num`
 * ones), and VERSION: one line naming the data, e.g. `2.3.2026061719` (letters, digits, `.`, `_`, `+`,
 * `-`; at most 64). Without a data directory the installed npm packages answer, versioned by their
 * package.json.
 */
export const IP_DATA_FILES = {
  mmdb: "geo-whois-asn-country.mmdb",
  asnIpv4: "asn-ipv4.csv",
  asnIpv6: "asn-ipv6.csv",
  version: "VERSION",
} as const;

export interface OpenIpDataOptions {
  /** A directory holding IP_DATA_FILES, replacing the npm packages' files. */
  dataDir?: string | undefined;
  /** Where the compiled ASN table is kept between starts; created when missing. */
  cacheDir: string;
  /** Told what the opening did: cache loaded or ASN CSVs compiled (and how long it took). */
  onEvent?: ((event: IpDataEvent) => void) | undefined;
  /**
   * Reloads (IpDataHolder.reload) read, compile and check the data on a worker thread, which hands it over
   * as bytes (transferred, not copied): the event loop only wraps them, in about a millisecond.
   */
  offThread?: boolean | undefined;
}

export type IpAttribution = ReturnType<IpDataSource["find"]>;

/** One opened, validated dataset. Immutable: a reload opens another and swaps (IpDataHolder). */
export interface IpData extends IpDataSource {
  readonly version: string;
  findV4(ip: number): IpAttribution;
  findV6(a: number, b: number, c: number, d: number, text: string): IpAttribution;
  /** The files it was read from. */
  readonly files: { mmdb: string; asnIpv4: string; asnIpv6: string };
  /** The compiled ASN table's file in the cache directory. */
  readonly cacheFile: string;
  readonly counts: { ipv4Ranges: number; ipv6Ranges: number; organisations: number };
}

const VERSION_TEXT = /^[A-Za-z0-9][A-Za-z0-9._+-]{0,63}$/;

/**
 * Opens and checks the IP data: the MMDB parsed and probed, the ASN table loaded from the cache or compiled
 * from the CSVs. Rejects with an Error naming the file at fault; nothing is half-open on failure.
 */
export async function openIpData(options: OpenIpDataOptions): Promise<IpData> {
  return (await loadIpData(options)).data;
}

/**
 * The IP data as openIpData checked it, in a form a worker thread can transfer whole (typed arrays over
 * ArrayBuffers of their own): assembleIpData makes it an IpData again without reading or checking twice.
 */
export interface PreparedIpData {
  version: string;
  files: IpData["files"];
  cacheFile: string;
  /** The MMDB file's bytes. */
  mmdb: Uint8Array;
  /** The ASN table in its cache-file layout, and the first search step computed over it. */
  asn: Uint8Array;
  asnBuckets: AsnBuckets;
  countryTops: CountryTops;
}

/** What openIpData does, kept in transferable form (run by the worker thread of a reload). */
export async function prepareIpData(options: OpenIpDataOptions): Promise<PreparedIpData> {
  return (await loadIpData(options)).prepared;
}

/** The IpData of prepared data, in constant time: views over its bytes, nothing parsed or checked again. */
export function assembleIpData(prepared: PreparedIpData): IpData {
  const bytes = (u8: Uint8Array) => Buffer.from(u8.buffer, u8.byteOffset, u8.byteLength);
  const countries = openCountryReader(bytes(prepared.mmdb), prepared.files.mmdb, prepared.countryTops);
  const { table } = decodeAsnTable(bytes(prepared.asn), prepared.asnBuckets);
  return dataOf(prepared, countries, table);
}

async function loadIpData(options: OpenIpDataOptions): Promise<{ data: IpData; prepared: PreparedIpData }> {
  const located = options.dataDir === undefined ? await packageFiles() : await dataDirFiles(options.dataDir);
  const { version, files } = located;
  const mmdbBytes = await readFile(files.mmdb).catch((error: Error) => {
    throw new Error(`cannot read ${files.mmdb}: ${error.message}`);
  });
  const countries = openCountryReader(mmdbBytes, files.mmdb);
  const { table, cacheFile, bytes } = await loadAsnTable({
    version,
    ipv4Csv: files.asnIpv4,
    ipv6Csv: files.asnIpv6,
    cacheDir: options.cacheDir,
    onEvent: options.onEvent,
  });
  const prepared: PreparedIpData = {
    version,
    files,
    cacheFile,
    mmdb: mmdbBytes,
    asn: bytes,
    asnBuckets: { v4Buckets: table.v4Buckets, v6Buckets: table.v6Buckets },
    countryTops: countries.tops,
  };
  return { data: dataOf(prepared, countries, table), prepared };
}

function dataOf(
  from: Pick<PreparedIpData, "version" | "files" | "cacheFile">,
  countries: CountryReader,
  table: AsnTable,
): IpData {
  const data: IpData = {
    version: from.version,
    files: from.files,
    cacheFile: from.cacheFile,
    counts: {
      ipv4Ranges: table.v4Asn.length,
      ipv6Ranges: table.v6Asn.length,
      organisations: table.orgs.count - 1,
    },
    find: (ip) => find(countries, table, ip),
    findV4: (ip) => answerV4(countries, table, ip),
    findV6: (a, b, c, d, text) => answerV6(countries, table, a, b, c, d, text),
  };
  // Every record path once, before the data is handed out: a file that parses but cannot answer fails here.
  for (const probe of ["1.1.1.1", "8.8.8.8", "2001:4860:4860::8888", "2a00::1"]) data.find(probe);
  return data;
}

function find(countries: CountryReader, table: AsnTable, ip: string): IpAttribution {
  const v4 = parseIpv4(ip);
  if (v4 >= 0) return answerV4(countries, table, v4);
  if (!parseIpv6(ip)) throw new TypeError(`not an IP address: ${JSON.stringify(ip)}`);
  return answerV6(
    countries,
    table,
    ipv6Words[0] as number,
    ipv6Words[1] as number,
    ipv6Words[2] as number,
    ipv6Words[3] as number,
    ip,
  );
}

function answerV6(
  countries: CountryReader,
  table: AsnTable,
  a: number,
  b: number,
  c: number,
  d: number,
  ip: string,
): IpAttribution {
  // IPv4-mapped (::ffff:0:0/96): the data keeps those ranges under IPv4 only.
  if (a === 0 && b === 0 && c === 0xffff) return answerV4(countries, table, d);
  const row = findV6Row(table, a, b, c, d);
  return {
    country: countries.v6(a, b, c, d, ip),
    asn: row < 0 ? null : (table.v6Asn[row] as number) || null,
    org: row < 0 ? null : table.orgs.get(table.v6Org[row] as number),
  };
}

function answerV4(countries: CountryReader, table: AsnTable, ip: number): IpAttribution {
  const row = findV4Row(table, ip);
  return {
    country: countries.v4(ip),
    asn: row < 0 ? null : (table.v4Asn[row] as number) || null,
    org: row < 0 ? null : table.orgs.get(table.v4Org[row] as number),
  };
}

interface Located {
  version: string;
  files: IpData["files"];
}

async function dataDirFiles(dir: string): Promise<Located> {
  const files = {
    mmdb: join(dir, IP_DATA_FILES.mmdb),
    asnIpv4: join(dir, IP_DATA_FILES.asnIpv4),
    asnIpv6: join(dir, IP_DATA_FILES.asnIpv6),
  };
  const versionFile = join(dir, IP_DATA_FILES.version);
  const text = await readFile(versionFile, "utf8").catch((error: Error) => {
    throw new Error(`IP data directory ${dir}: cannot read ${IP_DATA_FILES.version}: ${error.message}`);
  });
  const version = text.trim();
  if (!VERSION_TEXT.test(version)) {
    throw new Error(
      `${versionFile} must hold one version name (e.g. 2.3.2026061719), not ${JSON.stringify(version)}`,
    );
  }
  return { version, files };
}

/** The installed @ip-location-db packages; their package.json version is the ip-location-db build. */
async function packageFiles(): Promise<Located> {
  const require = createRequire(import.meta.url);
  const asnDir = dirname(require.resolve("@ip-location-db/asn/package.json"));
  const mmdbDir = dirname(require.resolve("@ip-location-db/geo-whois-asn-country-mmdb/package.json"));
  const versionOf = async (dir: string) => {
    const pkg: unknown = JSON.parse(await readFile(join(dir, "package.json"), "utf8"));
    const version = (pkg as { version?: unknown }).version;
    if (typeof version !== "string" || !VERSION_TEXT.test(version))
      throw new Error(`${dir}: no usable version`);
    return version;
  };
  const [asnVersion, mmdbVersion] = await Promise.all([versionOf(asnDir), versionOf(mmdbDir)]);
  return {
    // Both are bumped together; should they ever differ, the version names both (and a new cache file).
    version: asnVersion === mmdbVersion ? asnVersion : `${asnVersion}+country.${mmdbVersion}`,
    files: {
      mmdb: join(mmdbDir, IP_DATA_FILES.mmdb),
      asnIpv4: join(asnDir, IP_DATA_FILES.asnIpv4),
      asnIpv6: join(asnDir, IP_DATA_FILES.asnIpv6),
    },
  };
}

/** prepareIpData on a worker thread; the events it reports are passed on to `options.onEvent`. */
function prepareOffThread(options: OpenIpDataOptions): Promise<PreparedIpData> {
  const { dataDir, cacheDir, onEvent } = options;
  return runOffThread({ kind: "ip", options: { dataDir, cacheDir } }, onEvent) as Promise<PreparedIpData>;
}

/**
 * The data the service answers from, replaced whole on reload: `reload()` opens and checks the new data
 * completely before one reference changes, so a lookup sees the old data or the new, never a mix, and a
 * failed reload leaves the old data answering. Reloads run one at a time, in the order asked.
 */
export class IpDataHolder implements IpDataSource {
  #current: IpData;
  #options: OpenIpDataOptions;
  #queue: Promise<unknown> = Promise.resolve();

  private constructor(current: IpData, options: OpenIpDataOptions) {
    this.#current = current;
    this.#options = options;
  }

  static async open(options: OpenIpDataOptions): Promise<IpDataHolder> {
    return new IpDataHolder(await openIpData(options), options);
  }

  /** The dataset answering now; keep it for a run of lookups that must agree with each other. */
  get current(): IpData {
    return this.#current;
  }

  get version(): string {
    return this.#current.version;
  }

  find(ip: string): IpAttribution {
    return this.#current.find(ip);
  }

  findV4(ip: number): IpAttribution {
    return this.#current.findV4(ip);
  }

  findV6(a: number, b: number, c: number, d: number, text: string): IpAttribution {
    return this.#current.findV6(a, b, c, d, text);
  }

  /**
   * Opens the data again (new files under the same names, or `changes` such as another dataDir; pass
   * `dataDir: undefined` to go back to the npm packages) and swaps it in. Rejects, leaving the current
   * data in place, when the new data cannot be opened or checked.
   */
  reload(changes: Partial<OpenIpDataOptions> = {}): Promise<IpData> {
    const run = async () => {
      const options = { ...this.#options, ...changes };
      let next: IpData;
      try {
        next = options.offThread
          ? assembleIpData(await prepareOffThread(options))
          : await openIpData(options);
      } catch (error) {
        // The reason once, in the message: no `cause`, which a logger would print a second time.
        const reason = (error as Error).message;
        throw new Error(`IP data reload failed, still answering from ${this.#current.version}: ${reason}`);
      }
      this.#current = next;
      this.#options = options;
      return next;
    };
    const result = this.#queue.then(run, run);
    this.#queue = result.catch(() => {});
    return result;
  }
}
