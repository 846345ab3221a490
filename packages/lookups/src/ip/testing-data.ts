import { copyFile, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { IP_DATA_FILES } from "./database.js";

/*
 * Test fixtures for the ip/ tests: temporary directories and small hand-made datasets. Not exported by the
 * package; everything lands under os.tmpdir().
 */

const require = createRequire(import.meta.url);

/** The installed packages' files (the real data). */
export const packageFiles = {
  mmdbDir: dirname(require.resolve("@ip-location-db/geo-whois-asn-country-mmdb/package.json")),
  asnDir: dirname(require.resolve("@ip-location-db/asn/package.json")),
};
export const realMmdb = join(packageFiles.mmdbDir, IP_DATA_FILES.mmdb);
export const realVersion = (require("@ip-location-db/asn/package.json") as { version: string }).version;

/**
 * The checkout's compiled cache of the real data (`node_modules/.cache/vantage-ip-data`, the controller's
 * default, filled by `scripts/ensure-tools.sh`; compiled there by the first opener when it is not): for
 * tests that need the real data and not its compile, which costs 2.5–7 s of CPU. database.test compiles it
 * into a fresh directory of its own.
 */
export const installedCache = fileURLToPath(
  new URL("../../../../node_modules/.cache/vantage-ip-data", import.meta.url),
);

const made: string[] = [];

/** A fresh directory under os.tmpdir(), removed by removeTempDirs (each test file's afterAll). */
export async function tempDir(label: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), `vantage-ip-${label}-`));
  made.push(dir);
  return dir;
}

export async function removeTempDirs(): Promise<void> {
  await Promise.all(made.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
}

/** A data directory: the real country MMDB copied, the given CSV rows, and VERSION. */
export async function makeDataDir(
  version: string,
  ipv4Rows: string[],
  ipv6Rows: string[],
  into?: string,
): Promise<string> {
  const dir = into ?? (await tempDir("data"));
  await mkdir(dir, { recursive: true });
  await copyFile(realMmdb, join(dir, IP_DATA_FILES.mmdb));
  await writeFile(join(dir, IP_DATA_FILES.asnIpv4), `${ipv4Rows.join("\n")}\n`);
  await writeFile(join(dir, IP_DATA_FILES.asnIpv6), `${ipv6Rows.join("\n")}\n`);
  await writeFile(join(dir, IP_DATA_FILES.version), `${version}\n`);
  return dir;
}

/** A tiny dataset whose answers differ from the real data's, so a test sees which one answered. */
export const tinyIpv4 = [
  "1.1.1.0,1.1.1.255,64500,Tiny One",
  '8.8.8.0,8.8.8.255,64501,"Tiny, ""Eight"" Inc."',
  "9.9.9.0,9.9.9.255,64502,Tiny One",
];
export const tinyIpv6 = ["2001:4860::,2001:4860:ffff:ffff:ffff:ffff:ffff:ffff,64503,Tiny Six"];

/** Deterministic pseudo-random 32-bit numbers (xorshift32), so a failing case can be replayed from its seed. */
export function xorshift(seed: number): () => number {
  let x = seed;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return x >>> 0;
  };
}
