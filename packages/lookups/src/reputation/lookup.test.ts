import type { HostLookup } from "@vantage/probes";
import type { DnsTestServer } from "@vantage/probes/testing/dns-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type IpData, openIpData } from "../ip/database.js";
import { runLookup } from "../registry.js";
import { failure } from "../testing/failure.js";
import type { LookupContext } from "../types.js";
import { openReputationData } from "./data.js";
import type { ReputationData } from "./datasets.js";
import { type DnsblZone, parseDnsblZones } from "./dnsbl.js";
import { reputationLookup } from "./lookup.js";
import { type ReputationResult, reputationResultSchema } from "./schema.js";
import { closedPort, type FixtureRecord, startDnsServer, startFixtureDns } from "./testing/dnsbl-server.js";
import { addr, fixtureIpData, removeTempDirs, tempDir, writeDataDir } from "./testing/fixtures.js";

/*
 * Every DNS query goes to a loopback server on a random port (ctx.dnsServer, ctx.reputation.dnsbl.server)
 * and every name resolves through a fake HostLookup: nothing leaves 127.0.0.1.
 */

const rev = (ip: string) => ip.split(".").reverse().join(".");
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

let dns: DnsTestServer;
let silent: DnsTestServer;
let data: ReputationData;
beforeAll(async () => {
  dns = await startFixtureDns(records, {
    servfail: ["servfail.fixture.test"],
    silent: ["silent.fixture.test"],
  });
  silent = await startDnsServer(() => null);
  data = await openReputationData({ dir: await writeDataDir() });
});
afterAll(async () => {
  await dns.close();
  await silent.close();
  await removeTempDirs();
});

const zones = parseDnsblZones("zen.fixture.test=spamhaus,drone.fixture.test=dronebl");

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

const ctx = (extra: Partial<LookupContext> = {}, dnsbl: DnsblZone[] = zones): LookupContext => ({
  allowPrivate: true,
  dnsServer: `127.0.0.1:${dns.port}`,
  timeoutMs: 2000,
  ipData: fixtureIpData,
  lookup: hostLookup,
  reputation: { data, dnsbl: { zones: dnsbl } },
  ...extra,
});

async function check(q: string, c: LookupContext = ctx()): Promise<ReputationResult> {
  const result = await runLookup("reputation", { q }, c);
  expect(reputationResultSchema.parse(result)).toEqual(result);
  const sum = result.evidence.reduce((s, e) => s + e.weight, 0);
  if (result.score !== null) expect(result.score_capped ? Math.min(100, sum) : sum).toBe(result.score);
  return result;
}

const signals = (r: ReputationResult) => r.evidence.map((e) => [e.signal, e.weight]);

describe("reputation lookup: scores from the fixture data, IP data and loopback DNS", () => {
  it("a Tor exit on a hosting ASN: critical, tagged tor and hosting", async () => {
    const r = await check(addr.torOnHosting);
    expect(r).toMatchObject({
      ip: addr.torOnHosting,
      query: addr.torOnHosting,
      domain: null,
      score: 95,
      score_capped: false,
      risk_level: "critical",
      types: ["hosting", "tor"],
      country: "NL",
      asn: "AS64600",
      isp: "Fixture Hosting Ltd",
      reserved: false,
      range: null,
    });
    expect(signals(r)).toEqual([
      ["tor_exit", 60],
      ["hosting", 25],
      ["rdns_vpn_proxy", 10],
    ]);
    expect(r.evidence[1]?.description).toBe(
      "AS64600 (Fixture Hosting Ltd) is a hosting ASN and it is in a datacenter range",
    );
  });

  it("a clean address: low 0, every signal checked, the data versions given", async () => {
    const r = await check(addr.clean);
    expect(r).toMatchObject({
      score: 0,
      risk_level: "low",
      types: [],
      evidence: [],
      country: "GB",
      asn: "AS64700",
    });
    expect(r.signals_checked).toEqual([
      "tor_exits",
      "hosting_asns",
      "vpn_asns",
      "datacenter_ranges",
      "vpn_ranges",
      "cloud_ranges",
      "dnsbl:zen.fixture.test",
      "dnsbl:drone.fixture.test",
      "rdns",
    ]);
    expect(r.signals_unavailable).toEqual([]);
    expect(r.data_versions).toMatchObject({ ip_data: "fixture-ip-1" });
    expect(Object.keys(r.data_versions)).toEqual(
      expect.arrayContaining(["tor_exits", "cloud_ranges/fixturecloud"]),
    );
  });

  it("SBL and an open proxy on a datacenter range: the sum passes 100, capped and said so", async () => {
    const r = await check(addr.datacenter);
    expect(r).toMatchObject({
      score: 100,
      score_capped: true,
      risk_level: "critical",
      types: ["proxy", "hosting"],
    });
    expect(signals(r)).toEqual([
      ["open_proxy", 55],
      ["spamhaus_sbl", 40],
      ["hosting", 25],
    ]);
    expect(r.evidence[0]?.description).toBe(
      "drone.fixture.test lists it: DroneBL: open HTTP proxy (127.0.0.9)",
    );
  });

  it("a cloud range plus XBL: high 75 → critical; the IPv6 Tor exit without PTR: 88", async () => {
    const cloud = await check(addr.cloud);
    expect(signals(cloud)).toEqual([
      ["spamhaus_xbl", 50],
      ["hosting", 25],
      ["rdns_unconfirmed", 3],
    ]);
    expect(cloud.evidence[1]?.description).toBe("It is in fixturecloud's published cloud ranges");
    const v6 = await check("2a0b:0f00::0007");
    expect(v6).toMatchObject({ ip: addr.torV6, query: addr.torV6, score: 88, types: ["hosting", "tor"] });
    expect(v6.evidence.at(-1)).toEqual({
      signal: "rdns_unconfirmed",
      weight: 3,
      description: `${addr.torV6} has no PTR record`,
    });
  });

  it("PBL is residential (weight 0); an unconfirmed PTR adds 3", async () => {
    const r = await check(addr.residential);
    expect(r).toMatchObject({ score: 3, risk_level: "low", types: ["residential"] });
    expect(r.evidence).toEqual([
      {
        signal: "rdns_unconfirmed",
        weight: 3,
        description: "its PTR name dsl-81-2-3-5.dyn.broadband.example.test does not resolve back to 81.2.3.5",
      },
      {
        signal: "residential",
        weight: 0,
        description:
          'zen.fixture.test lists it: PBL: end-user range not meant to send mail directly (policy, not abuse) (127.0.0.10); its PTR name dsl-81-2-3-5.dyn.broadband.example.test looks like an access network\'s ("dsl")',
      },
    ]);
  });

  it("reads an IPv4-mapped address as its IPv4 address", async () => {
    const r = await check(`::ffff:${addr.torOnHosting}`);
    expect(r).toMatchObject({ ip: addr.torOnHosting, query: `::ffff:${addr.torOnHosting}`, score: 95 });
  });
});

describe("reputation lookup: Tor's DNSEL", () => {
  const withDnsel = parseDnsblZones("dnsel.torproject.org,zen.fixture.test=spamhaus");

  it("an exit only the DNSEL knows: tor_exit, high 60, never an other DNSBL hit", async () => {
    const r = await check(addr.clean, ctx({}, withDnsel));
    expect(r).toMatchObject({ score: 60, risk_level: "high", types: ["tor"] });
    expect(r.evidence).toEqual([
      {
        signal: "tor_exit",
        weight: 60,
        description: "dnsel.torproject.org lists it: Tor DNSEL: Tor exit relay (127.0.0.2)",
      },
    ]);
    expect(r.signals_checked).toEqual(expect.arrayContaining(["dnsbl:dnsel.torproject.org", "rdns"]));
  });

  it("an exit in the Tor list and the DNSEL: one tor_exit item naming both, the score unchanged", async () => {
    const r = await check(addr.torOnHosting, ctx({}, withDnsel));
    expect(r).toMatchObject({ score: 95, types: ["hosting", "tor"] });
    expect(signals(r)).toEqual([
      ["tor_exit", 60],
      ["hosting", 25],
      ["rdns_vpn_proxy", 10],
    ]);
    expect(r.evidence[0]?.description).toBe(
      `${addr.torOnHosting} is in the Tor exit list (data ${r.data_versions.tor_exits}); dnsel.torproject.org lists it: Tor DNSEL: Tor exit relay (127.0.0.2)`,
    );
  });

  it("an address the DNSEL does not list (NXDOMAIN) adds nothing", async () => {
    const r = await check(addr.residential, ctx({}, withDnsel));
    expect(r.signals_checked).toContain("dnsbl:dnsel.torproject.org");
    expect(r.types).toEqual(["residential"]);
    expect(r.score).toBe(3);
  });
});

describe("reputation lookup: what could not be checked", () => {
  it("127.255.255.254 from a list is unavailable, never a listing", async () => {
    const r = await check(addr.cloud, ctx({}, parseDnsblZones("error.fixture.test=spamhaus")));
    expect(r.signals_unavailable).toEqual([
      {
        signal: "dnsbl:error.fixture.test",
        reason: expect.stringContaining(
          "answered the error code 127.255.255.254: queries through public or open resolvers",
        ),
      },
    ]);
    expect(r.signals_checked).not.toContain("dnsbl:error.fixture.test");
    expect(r.evidence.map((e) => e.signal)).not.toContain("dnsbl_other");
    expect(r.score).toBe(28);
  });

  it("a SERVFAIL zone is unavailable; the others still answer", async () => {
    const r = await check(
      addr.datacenter,
      ctx({}, parseDnsblZones("servfail.fixture.test,zen.fixture.test=spamhaus")),
    );
    expect(r.signals_unavailable).toEqual([
      { signal: "dnsbl:servfail.fixture.test", reason: `127.0.0.1:${dns.port} answered SERVFAIL` },
    ]);
    expect(r.signals_checked).toContain("dnsbl:zen.fixture.test");
    expect(signals(r)).toEqual([
      ["spamhaus_sbl", 40],
      ["hosting", 25],
    ]);
  });

  it("a DNSBL server that is down: every zone unavailable at once, the answer on time from the rest", async () => {
    const port = await closedPort();
    const started = performance.now();
    const r = await check(
      addr.torOnHosting,
      ctx({ timeoutMs: 1000, reputation: { data, dnsbl: { zones, server: `127.0.0.1:${port}` } } }),
    );
    // The closed port answers ICMP port unreachable: refused at once, not waited out.
    expect(performance.now() - started).toBeLessThan(500);
    expect(r.signals_unavailable.map((s) => s.signal)).toEqual([
      "dnsbl:zen.fixture.test",
      "dnsbl:drone.fixture.test",
    ]);
    expect(r.signals_unavailable[0]?.reason).toMatch(/refused the UDP query/);
    expect(r.signals_checked).toContain("rdns"); // through ctx.dnsServer, which is up
    expect(r.score).toBe(95);
  });

  it("a silent resolver: DNSBL and rDNS unavailable, the answer within the deadline", async () => {
    const started = performance.now();
    const r = await check(addr.torOnHosting, ctx({ timeoutMs: 1000, dnsServer: `127.0.0.1:${silent.port}` }));
    expect(performance.now() - started).toBeLessThan(1000);
    expect(r.signals_unavailable.map((s) => s.signal)).toEqual([
      "dnsbl:zen.fixture.test",
      "dnsbl:drone.fixture.test",
      "rdns",
    ]);
    expect(signals(r)).toEqual([
      ["tor_exit", 60],
      ["hosting", 25],
    ]);
  });

  it("a zone that never answers is unavailable while the others have answered", async () => {
    const r = await check(
      addr.datacenter,
      ctx({ timeoutMs: 800 }, parseDnsblZones("silent.fixture.test,drone.fixture.test=dronebl")),
    );
    expect(r.signals_unavailable.map((s) => s.signal)).toEqual(["dnsbl:silent.fixture.test"]);
    expect(r.evidence.map((e) => e.signal)).toContain("open_proxy");
  });

  it("guards the context's resolver (not the operator's DNSBL server) unless allowPrivate", async () => {
    const r = await check(
      addr.datacenter,
      ctx({ allowPrivate: false, reputation: { data, dnsbl: { zones, server: `127.0.0.1:${dns.port}` } } }),
    );
    expect(r.signals_checked).toContain("dnsbl:zen.fixture.test");
    expect(r.signals_unavailable).toEqual([
      { signal: "rdns", reason: expect.stringMatching(/^resolver: 127\.0\.0\.1 is in a/) },
    ]);
  });

  it("a forward lookup that fails leaves the PTR unconfirmed-unknown, not scored", async () => {
    const records2: FixtureRecord[] = [
      { name: `${rev(addr.clean)}.in-addr.arpa`, type: "PTR", data: "host.broken.example.test" },
    ];
    const server = await startFixtureDns(records2, { servfail: ["broken.example.test"] });
    try {
      const r = await check(addr.clean, ctx({ dnsServer: `127.0.0.1:${server.port}`, reputation: { data } }));
      expect(r.signals_checked).toContain("rdns");
      expect(r.signals_unavailable).toEqual([
        {
          signal: "rdns_forward",
          reason: `127.0.0.1:${server.port} answered SERVFAIL to host.broken.example.test A`,
        },
      ]);
      expect(signals(r)).toEqual([["rdns_hosting", 5]]);
    } finally {
      await server.close();
    }
  });

  it("without IP data: country, AS and ISP null, the ASN lists and ip_data unavailable", async () => {
    const r = await check(addr.torOnHosting, ctx({ ipData: undefined }));
    expect(r).toMatchObject({ country: null, asn: null, isp: null, types: ["hosting", "tor"] });
    expect(r.signals_unavailable.map((s) => s.signal)).toEqual(["hosting_asns", "vpn_asns", "ip_data"]);
    expect(r.evidence[1]?.description).toBe("It is in a datacenter range");
    expect(r.data_versions).not.toHaveProperty("ip_data");
  });

  it("a dataset missing from the directory is unavailable", async () => {
    const partial = await openReputationData({
      dir: await writeDataDir({ "hosting-vpn/input/vpn/ASN.txt": "AS64650\n" }),
    });
    const r = await check(addr.torOnHosting, ctx({ reputation: { data: partial, rdns: false } }));
    expect(r.signals_checked).toEqual(["vpn_asns"]);
    expect(r.signals_unavailable.map((s) => s.signal)).toEqual([
      "tor_exits",
      "hosting_asns",
      "datacenter_ranges",
      "vpn_ranges",
      "cloud_ranges",
    ]);
    expect(r.score).toBe(0);
  });

  it("rdns: false and no zones: no query at all", async () => {
    const before = dns.seen.udp;
    const r = await check(addr.clean, ctx({ reputation: { data, rdns: false } }));
    expect(dns.seen.udp).toBe(before);
    expect(r.signals_checked).not.toContain("rdns");
  });
});

describe("reputation lookup: reserved addresses and domains", () => {
  it.each([
    ["10.1.2.3", "private"],
    ["127.0.0.1", "loopback"],
    ["192.0.2.10", "documentation"],
    ["::1", "loopback"],
    ["fe80::1", "link_local"],
  ])("%s is %s: not applicable, nothing asked", async (ip, range) => {
    const before = dns.seen.udp;
    const r = await check(ip);
    expect(r).toMatchObject({
      ip,
      score: null,
      risk_level: "not_applicable",
      reserved: true,
      range,
      evidence: [],
      types: [],
      signals_checked: [],
      signals_unavailable: [],
      country: null,
    });
    expect(dns.seen.udp).toBe(before);
  });

  it("a domain is resolved and its first address scored; the answer says so", async () => {
    const r = await check("Tor.Example.Test.");
    expect(r).toMatchObject({
      query: "tor.example.test",
      domain: "tor.example.test",
      ip: addr.torOnHosting,
      score: 95,
    });
    const v6 = await check("v6.example.test");
    expect(v6).toMatchObject({ domain: "v6.example.test", ip: addr.torV6 });
  });

  it("a domain resolving to a TEST-NET address is not applicable, with the domain set", async () => {
    const r = await check("docs.example.test");
    expect(r).toMatchObject({
      domain: "docs.example.test",
      ip: "192.0.2.10",
      reserved: true,
      range: "documentation",
      risk_level: "not_applicable",
    });
  });

  it("a domain without an address is not_found", async () => {
    for (const q of ["missing.example.test", "empty.example.test"]) {
      const error = await failure(runLookup("reputation", { q }, ctx()));
      expect(error.code).toBe("not_found");
      expect(error.message).toBe(`${q} has no address`);
    }
  });

  it("a resolver that hangs is upstream_timeout; a lookup stopped by the caller too", async () => {
    const hanging: HostLookup = () => new Promise(() => {});
    const slow = await failure(
      runLookup("reputation", { q: "tor.example.test" }, ctx({ lookup: hanging, timeoutMs: 200 })),
    );
    expect(slow.code).toBe("upstream_timeout");
    expect(slow.message).toBe("no address for tor.example.test within 200 ms");
    const caller = new AbortController();
    const pending = runLookup(
      "reputation",
      { q: addr.clean },
      ctx({ signal: caller.signal, dnsServer: `127.0.0.1:${silent.port}` }),
    );
    setTimeout(() => caller.abort(), 50);
    const stopped = await failure(pending);
    expect(stopped).toMatchObject({
      code: "upstream_timeout",
      message: "the lookup was stopped before an answer came",
    });
  });

  it("fails unavailable without reputation data", async () => {
    const error = await failure(
      reputationLookup.run({ kind: "ip", ip: addr.clean }, ctx({ reputation: {} })),
    );
    expect(error).toMatchObject({ code: "unavailable", message: "the reputation data is not loaded" });
  });
});

describe("reputation lookup: input", () => {
  it.each([
    [" 45.10.0.7 ", { kind: "ip", ip: "45.10.0.7" }],
    ["[2A0B:F00::7]", { kind: "ip", ip: "2a0b:f00::7" }],
    ["Example.COM.", { kind: "domain", domain: "example.com" }],
    ["bücher.example", { kind: "domain", domain: "xn--bcher-kva.example" }],
  ])("%j → %j", (q, expected) => {
    expect(reputationLookup.inputSchema.parse({ q })).toEqual(expected);
  });

  it.each([
    [{ q: "10.0.0.0/8" }, "q", "expected one IP address, not a network (CIDR)"],
    [{ q: "1.2.3" }, "q", "expected an IPv4 or IPv6 address"],
    [
      { q: "not a name" },
      "q",
      "expected an IP address or a domain name: expected a domain name: labels of 1–63",
    ],
    [{ q: "" }, "q", "expected an IP address or a domain name: expected a domain name"],
    [{ q: "1.2.3.4", extra: 1 }, "extra", "unknown field"],
    [{}, "q", ""],
  ])("%j → invalid_input at %s", async (input, path, message) => {
    const error = await failure(runLookup("reputation", input, ctx()));
    expect(error.code).toBe("invalid_input");
    expect(error.issues[0]?.path).toBe(path);
    expect(error.issues[0]?.message).toContain(message);
  });
});

describe("reputation lookup: the shipped data with the real IP data (no DNS checks)", () => {
  let shipped: ReputationData;
  let ipData: IpData;
  beforeAll(async () => {
    shipped = await openReputationData();
    ipData = await openIpData({ cacheDir: await tempDir("ip-cache") });
  }, 60_000);

  const real = (): LookupContext => ({
    allowPrivate: false,
    ipData,
    reputation: { data: shipped, rdns: false },
  });

  it("a DigitalOcean droplet address: medium 25, hosting", async () => {
    const r = await check("159.203.0.1", real());
    expect(r).toMatchObject({
      score: 25,
      risk_level: "medium",
      types: ["hosting"],
      asn: "AS14061",
      isp: "DigitalOcean, LLC",
    });
    expect(r.evidence[0]?.description).toMatch(
      /^AS14061 \(DigitalOcean, LLC\) is a hosting ASN, it is in digitalocean's published cloud ranges/,
    );
    expect(r.data_versions).toMatchObject({ tor_exits: "2024-02-27", hosting_asns: "2026-08-22" });
    expect(r.signals_unavailable).toEqual([]);
  });

  it("a Tor exit of the shipped list on the Tor-exit operators' AS: critical, tor and vpn", async () => {
    const r = await check("185.220.101.1", real());
    expect(r.types).toEqual(expect.arrayContaining(["tor", "vpn"]));
    expect(r.risk_level).toBe("critical");
  });

  it("a broadband address: low 0", async () => {
    const r = await check("81.2.69.142", real());
    expect(r).toMatchObject({ score: 0, risk_level: "low", asn: "AS20712" });
  });
});
