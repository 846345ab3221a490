import type { HostLookup } from "@vantage/probes";
import type { DnsTestServer } from "@vantage/probes/testing/dns-server";
import { afterAll, beforeAll, expect } from "vitest";
import { runLookup } from "../../registry.js";
import type { LookupContext } from "../../types.js";
import { openReputationData } from "../data.js";
import type { ReputationData } from "../datasets.js";
import { type DnsblZone, parseDnsblZones } from "../dnsbl.js";
import { type ReputationResult, reputationResultSchema } from "../schema.js";
import { type FixtureRecord, startDnsServer, startFixtureDns } from "./dnsbl-server.js";
import { addr, fixtureIpData, removeTempDirs, writeDataDir } from "./fixtures.js";

/*
 * What the reputation lookup's test files share. Every DNS query goes to a loopback server on a random port
 * (ctx.dnsServer, ctx.reputation.dnsbl.server) and every name resolves through a fake HostLookup: nothing
 * leaves 127.0.0.1.
 */

export const rev = (ip: string) => ip.split(".").reverse().join(".");
const records: FixtureRecord[] = [
  // The Tor exit: a forward-confirmed PTR that says so.
  { name: `${rev(addr.torOnHosting)}.in-addr.arpa`, type: "PTR", data: "tor-exit.relay.example.test" },
  { name: "tor-exit.relay.example.test", type: "A", data: addr.torOnHosting },
  // The clean address: confirmed, plain name; listed nowhere.
  { name: `${rev(addr.clean)}.in-addr.arpa`, type: "PTR", data: "mail.fixture-isp.example.test" },
  { name: "mail.fixture-isp.example.test", type: "A", data: addr.clean },
  // The residential address: a dynamic name that resolves elsewhere (not confirmed), on the PBL.
  {
    name: `${rev(addr.residential)}.in-addr.arpa`,
    type: "PTR",
    data: "dsl-81-2-3-5.dyn.broadband.example.test",
  },
  { name: "dsl-81-2-3-5.dyn.broadband.example.test", type: "A", data: "81.2.3.99" },
  { name: `${rev(addr.residential)}.zen.fixture.test`, type: "A", data: "127.0.0.10" },
  // The datacenter address: SBL, and an open HTTP proxy on DroneBL.
  { name: `${rev(addr.datacenter)}.in-addr.arpa`, type: "PTR", data: "srv1.colo.example.test" },
  { name: "srv1.colo.example.test", type: "A", data: addr.datacenter },
  { name: `${rev(addr.datacenter)}.zen.fixture.test`, type: "A", data: "127.0.0.2" },
  { name: `${rev(addr.datacenter)}.drone.fixture.test`, type: "A", data: "127.0.0.9" },
  // The cloud address: XBL (127.0.0.4); the error zone answers 127.255.255.254 for it.
  { name: `${rev(addr.cloud)}.zen.fixture.test`, type: "A", data: "127.0.0.4" },
  { name: `${rev(addr.clean)}.error.fixture.test`, type: "A", data: "127.255.255.254" },
  { name: `${rev(addr.cloud)}.error.fixture.test`, type: "A", data: "127.255.255.254" },
  // Tor's DNSEL (asked here, on loopback): the listed exit, and an exit the bulk list does not know yet.
  { name: `${rev(addr.torOnHosting)}.dnsel.torproject.org`, type: "A", data: "127.0.0.2" },
  { name: `${rev(addr.clean)}.dnsel.torproject.org`, type: "A", data: "127.0.0.2" },
  // The zones exist (so a name under them that is absent is NXDOMAIN from the zone, as a real list answers).
  { name: "zen.fixture.test", type: "A", data: "127.0.0.1" },
];

let _dns: DnsTestServer;
let _silent: DnsTestServer;

export const zones = parseDnsblZones("zen.fixture.test=spamhaus,drone.fixture.test=dronebl");

const names: Record<string, string[]> = {
  "tor.example.test": [addr.torOnHosting, "2a0b:f00::7"],
  "docs.example.test": ["192.0.2.10"],
  "v6.example.test": ["2a0b:f00:0:0:0:0:0:7"],
  "empty.example.test": [],
};
const hostLookup: HostLookup = async (host) => {
  const found = names[host];
  if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: "ENOTFOUND" });
  return found.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));
};

export const signals = (r: ReputationResult) => r.evidence.map((e) => [e.signal, e.weight]);

/**
 * Starts the fixture DNS server (the records above), a silent one and the fixture reputation data before
 * the calling file's tests and stops them after. `ctx()` is a lookup context on them; `check()` runs a
 * lookup and checks the answer's shape and that its score is the sum of its evidence.
 */
export function useReputationFixture() {
  const fx = {} as { dns: DnsTestServer; silent: DnsTestServer; data: ReputationData };
  beforeAll(async () => {
    fx.dns = await startFixtureDns(records, {
      servfail: ["servfail.fixture.test"],
      silent: ["silent.fixture.test"],
    });
    fx.silent = await startDnsServer(() => null);
    fx.data = await openReputationData({ dir: await writeDataDir() });
  });
  afterAll(async () => {
    await fx.dns.close();
    await fx.silent.close();
    await removeTempDirs();
  });

  const ctx = (extra: Partial<LookupContext> = {}, dnsbl: DnsblZone[] = zones): LookupContext => ({
    allowPrivate: true,
    dnsServer: `127.0.0.1:${fx.dns.port}`,
    timeoutMs: 2000,
    ipData: fixtureIpData,
    lookup: hostLookup,
    reputation: { data: fx.data, dnsbl: { zones: dnsbl } },
    ...extra,
  });

  async function check(q: string, c: LookupContext = ctx()): Promise<ReputationResult> {
    const result = await runLookup("reputation", { q }, c);
    expect(reputationResultSchema.parse(result)).toEqual(result);
    const sum = result.evidence.reduce((s, e) => s + e.weight, 0);
    if (result.score !== null) expect(result.score_capped ? Math.min(100, sum) : sum).toBe(result.score);
    return result;
  }

  return { fx, ctx, check };
}
