import { describe, expect, it } from "vitest";
import { openReputationData } from "./data.js";
import { parseDnsblZones } from "./dnsbl.js";
import { closedPort, type FixtureRecord, startFixtureDns } from "./testing/dnsbl-server.js";
import { addr, writeDataDir } from "./testing/fixtures.js";
import { rev, signals, useReputationFixture, zones } from "./testing/lookup-fixture.js";

/** Scores, Tor's DNSEL and what could not be checked, on the loopback fixture DNS (see lookup-fixture.ts). */
const { fx, ctx, check } = useReputationFixture();

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
      { signal: "dnsbl:servfail.fixture.test", reason: `127.0.0.1:${fx.dns.port} answered SERVFAIL` },
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
      ctx({ timeoutMs: 1000, reputation: { data: fx.data, dnsbl: { zones, server: `127.0.0.1:${port}` } } }),
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
    // The DNS checks may use 90 % of the time left: at 3 s, 300 ms remain for the answer, room enough for a
    // loaded machine's late timers (at 1 s, 100 ms was once not: 1,048 ms in CI).
    const started = performance.now();
    const r = await check(
      addr.torOnHosting,
      ctx({ timeoutMs: 3000, dnsServer: `127.0.0.1:${fx.silent.port}` }),
    );
    expect(performance.now() - started).toBeLessThan(3000);
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
      ctx({
        allowPrivate: false,
        reputation: { data: fx.data, dnsbl: { zones, server: `127.0.0.1:${fx.dns.port}` } },
      }),
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
      const r = await check(
        addr.clean,
        ctx({ dnsServer: `127.0.0.1:${server.port}`, reputation: { data: fx.data } }),
      );
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
    const before = fx.dns.seen.udp;
    const r = await check(addr.clean, ctx({ reputation: { data: fx.data, rdns: false } }));
    expect(fx.dns.seen.udp).toBe(before);
    expect(r.signals_checked).not.toContain("rdns");
  });
});
