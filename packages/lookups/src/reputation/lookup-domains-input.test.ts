import type { HostLookup } from "@vantage/probes";
import { beforeAll, describe, expect, it } from "vitest";
import { type IpData, openIpData } from "../ip/database.js";
import { installedCache } from "../ip/testing-data.js";
import { runLookup } from "../registry.js";
import { failure } from "../testing/failure.js";
import type { LookupContext } from "../types.js";
import { openReputationData } from "./data.js";
import type { ReputationData } from "./datasets.js";
import { reputationLookup } from "./lookup.js";
import { addr } from "./testing/fixtures.js";
import { useReputationFixture } from "./testing/lookup-fixture.js";

/** Reserved addresses, domains, input checks, and the shipped data (the fixture's DNS: see lookup.test.ts). */
const { fx, ctx, check } = useReputationFixture();

describe("reputation lookup: reserved addresses and domains", () => {
  it.each([
    ["10.1.2.3", "private"],
    ["127.0.0.1", "loopback"],
    ["192.0.2.10", "documentation"],
    ["::1", "loopback"],
    ["fe80::1", "link_local"],
  ])("%s is %s: not applicable, nothing asked", async (ip, range) => {
    const before = fx.dns.seen.udp;
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
    expect(fx.dns.seen.udp).toBe(before);
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

  it("a resolver that does not answer is upstream_error, the domain and the cause named once", async () => {
    const silent: HostLookup = () =>
      Promise.reject(
        Object.assign(new Error("getaddrinfo EAI_AGAIN tor.example.test"), { code: "EAI_AGAIN" }),
      );
    const error = await failure(runLookup("reputation", { q: "tor.example.test" }, ctx({ lookup: silent })));
    expect(error.code).toBe("upstream_error");
    expect(error.message).toBe(
      "cannot resolve tor.example.test: the node's resolver did not answer (EAI_AGAIN)",
    );
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
      ctx({ signal: caller.signal, dnsServer: `127.0.0.1:${fx.silent.port}` }),
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
    ipData = await openIpData({ cacheDir: installedCache });
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
