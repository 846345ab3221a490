import type { DnsTestServer } from "@vantage/probes/testing/dns-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Budget, pickResolver } from "../net/resolver.js";
import { ptrName } from "./dns-check.js";
import { checkDnsbl, dnsblQueryName, parseDnsblZones, readDnsblAnswer } from "./dnsbl.js";
import { startFixtureDns } from "./testing/dnsbl-server.js";

describe("parseDnsblZones", () => {
  it("picks known zones' profiles and takes zone=profile", () => {
    expect(
      parseDnsblZones(
        " zen.spamhaus.org,dnsbl.dronebl.org , bl.spamcop.net,bl.example.test=spamhaus,other.example.test",
      ),
    ).toEqual([
      { zone: "zen.spamhaus.org", profile: "spamhaus" },
      { zone: "dnsbl.dronebl.org", profile: "dronebl" },
      { zone: "bl.spamcop.net", profile: "spamcop" },
      { zone: "bl.example.test", profile: "spamhaus" },
      { zone: "other.example.test", profile: "generic" },
    ]);
    expect(parseDnsblZones("DNSEL.torproject.org, exits.example.test = DNSEL")).toEqual([
      { zone: "dnsel.torproject.org", profile: "dnsel" },
      { zone: "exits.example.test", profile: "dnsel" },
    ]);
    expect(parseDnsblZones("KEY123.zen.dq.spamhaus.net., ZEN.Spamhaus.org=GENERIC")).toEqual([
      { zone: "key123.zen.dq.spamhaus.net", profile: "spamhaus" },
      { zone: "zen.spamhaus.org", profile: "generic" },
    ]);
  });

  it("reads blank text as no zones", () => {
    expect(parseDnsblZones("")).toEqual([]);
    expect(parseDnsblZones("  ")).toEqual([]);
  });

  it.each([
    ["zen.spamhaus.org,,bl.example.test", "DNSBL zone list, entry 2 is empty (a stray comma?)"],
    ["zen.spamhaus.org,", "entry 2 is empty"],
    [
      "bl.example.test=nope",
      'entry 1 ("bl.example.test=nope"): profile must be one of spamhaus, dronebl, spamcop, dnsel, generic',
    ],
    ["bad zone.test", 'entry 1 ("bad zone.test"): expected a domain name'],
    ["=spamhaus", "entry 1"],
    ["localhost", "a DNSBL zone has at least two labels"],
    ["a.test,A.test.", "a.test is listed twice"],
  ])("refuses %j: %s", (text, message) => {
    expect(() => parseDnsblZones(text)).toThrow(message);
  });
});

describe("readDnsblAnswer", () => {
  it("reads Spamhaus ZEN's codes, several at once", () => {
    expect(readDnsblAnswer("spamhaus", ["127.0.0.2", "127.0.0.9", "127.0.0.4"])).toEqual({
      status: "listed",
      listings: [
        { code: "127.0.0.2", category: "sbl", meaning: "SBL: spam source or spam operation" },
        {
          code: "127.0.0.9",
          category: "drop",
          meaning: "DROP: hijacked or criminal network (Don't Route Or Peer)",
        },
        { code: "127.0.0.4", category: "xbl", meaning: "XBL: exploited host (botnet, malware, open proxy)" },
      ],
    });
    for (const code of ["127.0.0.10", "127.0.0.11"]) {
      expect(readDnsblAnswer("spamhaus", [code])).toMatchObject({ listings: [{ category: "pbl" }] });
    }
    for (const code of ["127.0.0.5", "127.0.0.6", "127.0.0.7"]) {
      expect(readDnsblAnswer("spamhaus", [code])).toMatchObject({ listings: [{ category: "xbl" }] });
    }
    expect(readDnsblAnswer("spamhaus", ["127.0.0.3"])).toMatchObject({ listings: [{ category: "sbl" }] });
    expect(readDnsblAnswer("spamhaus", ["127.0.0.30"])).toMatchObject({
      listings: [{ meaning: "BCL: botnet controller" }],
    });
    expect(readDnsblAnswer("spamhaus", ["127.0.0.99"])).toMatchObject({ listings: [{ category: "other" }] });
  });

  it("never reads 127.255.255.x as a listing: the list's error, with Spamhaus's meaning", () => {
    expect(readDnsblAnswer("spamhaus", ["127.255.255.254"])).toEqual({
      status: "unavailable",
      reason:
        "answered the error code 127.255.255.254: queries through public or open resolvers are refused (use your own resolver, or a DQS key)",
    });
    expect(readDnsblAnswer("spamhaus", ["127.255.255.255"])).toMatchObject({ status: "unavailable" });
    expect(readDnsblAnswer("spamhaus", ["127.0.0.2", "127.255.255.252"])).toMatchObject({
      status: "unavailable",
    });
    expect(readDnsblAnswer("generic", ["127.255.255.1"])).toEqual({
      status: "unavailable",
      reason: "answered the error code 127.255.255.1",
    });
  });

  it("reads an answer outside 127.0.0.0/8 (an NXDOMAIN-rewriting resolver) as unavailable", () => {
    expect(readDnsblAnswer("generic", ["93.184.216.34"])).toMatchObject({ status: "unavailable" });
  });

  it("tells DroneBL's proxies from its other classes", () => {
    for (const code of [8, 9, 10, 11, 14]) {
      expect(readDnsblAnswer("dronebl", [`127.0.0.${code}`])).toMatchObject({
        listings: [{ category: "proxy" }],
      });
    }
    for (const code of [3, 6, 7, 13, 17, 19, 255]) {
      expect(readDnsblAnswer("dronebl", [`127.0.0.${code}`])).toMatchObject({
        listings: [{ category: "other" }],
      });
    }
    expect(readDnsblAnswer("dronebl", ["127.0.0.8"])).toMatchObject({
      listings: [{ meaning: "DroneBL: open SOCKS proxy" }],
    });
  });

  it("reads SpamCop and generic lists: any 127.0.0.0/8 answer is a listing", () => {
    expect(readDnsblAnswer("spamcop", ["127.0.0.2"])).toMatchObject({
      listings: [{ category: "other", meaning: "SpamCop: reported spam source" }],
    });
    expect(readDnsblAnswer("generic", ["127.0.0.2", "127.1.2.3"])).toEqual({
      status: "listed",
      listings: [
        { code: "127.0.0.2", category: "other", meaning: "listed (127.0.0.2)" },
        { code: "127.1.2.3", category: "other", meaning: "listed (127.1.2.3)" },
      ],
    });
    expect(readDnsblAnswer("generic", [])).toEqual({ status: "not_listed" });
  });

  it("reads any 127.0.0.0/8 answer of Tor's DNSEL as a Tor exit, never its error codes", () => {
    expect(readDnsblAnswer("dnsel", ["127.0.0.2"])).toEqual({
      status: "listed",
      listings: [{ code: "127.0.0.2", category: "tor", meaning: "Tor DNSEL: Tor exit relay" }],
    });
    expect(readDnsblAnswer("dnsel", ["127.0.0.3", "127.1.0.1"])).toMatchObject({
      listings: [{ category: "tor" }, { category: "tor" }],
    });
    expect(readDnsblAnswer("dnsel", ["127.255.255.254"])).toEqual({
      status: "unavailable",
      reason: "answered the error code 127.255.255.254",
    });
    expect(readDnsblAnswer("dnsel", ["198.51.100.1"])).toMatchObject({ status: "unavailable" });
    expect(readDnsblAnswer("dnsel", [])).toEqual({ status: "not_listed" });
  });
});

describe("checkDnsbl against a loopback DNSBL", () => {
  const rev = (ip: string) => ip.split(".").reverse().join(".");
  let dns: DnsTestServer;
  beforeAll(async () => {
    dns = await startFixtureDns(
      [
        { name: `${rev("45.10.0.7")}.dnsel.torproject.org`, type: "A", data: "127.0.0.2" },
        { name: `${rev("45.10.0.7")}.exits.fixture.test`, type: "A", data: "127.0.0.2" },
        { name: `${rev("81.2.3.4")}.exits.fixture.test`, type: "A", data: "127.255.255.255" },
      ],
      { servfail: ["broken.fixture.test"] },
    );
  });
  afterAll(async () => {
    await dns.close();
  });

  const check = async (ip: string, zones: string) => {
    const budget: Budget = { signal: new AbortController().signal, endsAt: performance.now() + 2000 };
    const resolver = await pickResolver(`127.0.0.1:${dns.port}`, { allowPrivate: true }, budget);
    return checkDnsbl(ip, parseDnsblZones(zones), resolver, budget);
  };

  it("dnsel.torproject.org and a zone=dnsel list a Tor exit; NXDOMAIN is not listed", async () => {
    expect(await check("45.10.0.7", "dnsel.torproject.org,exits.fixture.test=dnsel")).toEqual([
      {
        zone: "dnsel.torproject.org",
        profile: "dnsel",
        status: "listed",
        listings: [{ code: "127.0.0.2", category: "tor", meaning: "Tor DNSEL: Tor exit relay" }],
      },
      {
        zone: "exits.fixture.test",
        profile: "dnsel",
        status: "listed",
        listings: [{ code: "127.0.0.2", category: "tor", meaning: "Tor DNSEL: Tor exit relay" }],
      },
    ]);
    expect(await check("81.2.3.5", "dnsel.torproject.org")).toEqual([
      { zone: "dnsel.torproject.org", profile: "dnsel", status: "not_listed" },
    ]);
  });

  it("a DNSEL's error code or SERVFAIL is unavailable, never a Tor exit", async () => {
    expect(await check("81.2.3.4", "exits.fixture.test=dnsel,broken.fixture.test=dnsel")).toEqual([
      {
        zone: "exits.fixture.test",
        profile: "dnsel",
        status: "unavailable",
        reason: "answered the error code 127.255.255.255",
      },
      {
        zone: "broken.fixture.test",
        profile: "dnsel",
        status: "unavailable",
        reason: `127.0.0.1:${dns.port} answered SERVFAIL`,
      },
    ]);
  });
});

describe("query names", () => {
  it("reverses IPv4 octets and IPv6 nibbles", () => {
    expect(dnsblQueryName("1.2.3.4", "zen.spamhaus.org")).toBe("4.3.2.1.zen.spamhaus.org");
    expect(dnsblQueryName("2001:db8::1", "bl.test")).toBe(
      "1.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.8.b.d.0.1.0.0.2.bl.test",
    );
    expect(ptrName("192.0.2.10")).toBe("10.2.0.192.in-addr.arpa");
    expect(ptrName("2001:db8::abcd")).toBe(
      "d.c.b.a.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.8.b.d.0.1.0.0.2.ip6.arpa",
    );
  });
});
