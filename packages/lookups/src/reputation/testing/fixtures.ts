import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { IpDataSource } from "../../ip/schema.js";

/*
 * Test fixtures for the reputation tests: a small data directory in the shipped layout and a fake IP data
 * source. The addresses are public ones (reserved addresses are never scored), chosen for the fixture;
 * nothing is ever sent to them: the DNS checks ask a loopback server about them.
 */

/** The fixture's addresses, by what the fixture data says about them. */
export const addr = {
  /** A Tor exit on a hosting ASN (AS64600). */
  torOnHosting: "45.10.0.7",
  /** A Tor exit over IPv6, on no listed ASN. */
  torV6: "2a0b:f00::7",
  /** On AS64700, a broadband ASN no list names: clean. */
  clean: "81.2.3.4",
  /** A second clean broadband address (a PBL listing in the DNS fixture). */
  residential: "81.2.3.5",
  /** In the VPN range list, on the hosting ASN as well. */
  vpnOnHosting: "45.10.9.9",
  /** In the fixture cloud provider's ranges; its AS (64800) is on no list. */
  cloud: "52.1.2.3",
  /** In the datacenter ranges only. */
  datacenter: "62.5.5.5",
} as const;

export const fixtureFiles: Record<string, string> = {
  "tor/tor-exit-nodes.lst": `${addr.torOnHosting}\n45.10.0.8\n${addr.torV6}\n`,
  "hosting-vpn/input/datacenter/ASN.txt":
    "AS64600 # FIXTURE-HOSTING - Fixture Hosting Ltd, NL\nAS64601\t# https://example.test/issue/1\n",
  "hosting-vpn/input/vpn/ASN.txt": "AS64650 # Fixture VPN\n",
  "hosting-vpn/output/datacenter/ipv4.txt": "45.10.0.0/16\n62.5.5.0/24\n",
  "hosting-vpn/output/datacenter/ipv6.txt": "2a0b:f00::/32\n",
  "hosting-vpn/output/vpn/ipv4.txt": "45.10.9.0/24\n",
  "hosting-vpn/output/vpn/ipv6.txt": "2a0b:f00:9::/48\n",
  "cloud-ranges/fixturecloud/ipv4_merged.txt": "52.1.0.0/16\n",
  "cloud-ranges/fixturecloud/ipv6_merged.txt": "2600:1f00::/24\n",
};

/** Country, AS and organisation per fixture address; anything else is unknown. */
const attribution: Record<string, { country: string; asn: number; org: string }> = {
  [addr.torOnHosting]: { country: "NL", asn: 64600, org: "Fixture Hosting Ltd" },
  [addr.vpnOnHosting]: { country: "NL", asn: 64600, org: "Fixture Hosting Ltd" },
  [addr.clean]: { country: "GB", asn: 64700, org: "Fixture Broadband plc" },
  [addr.residential]: { country: "GB", asn: 64700, org: "Fixture Broadband plc" },
  [addr.cloud]: { country: "US", asn: 64800, org: "Fixture Cloud Inc" },
  [addr.datacenter]: { country: "DE", asn: 64900, org: "Fixture Colo GmbH" },
};

export const fixtureIpData: IpDataSource = {
  version: "fixture-ip-1",
  find: (ip) => attribution[ip] ?? { country: null, asn: null, org: null },
};

const made: string[] = [];

/** A fresh directory under os.tmpdir(), removed by removeTempDirs (each test file's afterAll). */
export async function tempDir(label: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), `vantage-reputation-${label}-`));
  made.push(dir);
  return dir;
}

export async function removeTempDirs(): Promise<void> {
  await Promise.all(made.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
}

/** Writes `files` (path → text; null leaves a file out) into `dir`, or a fresh directory. */
export async function writeDataDir(
  files: Record<string, string | null> = fixtureFiles,
  into?: string,
): Promise<string> {
  const dir = into ?? (await tempDir("data"));
  for (const [path, text] of Object.entries(files)) {
    if (text === null) continue;
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), text);
  }
  return dir;
}
