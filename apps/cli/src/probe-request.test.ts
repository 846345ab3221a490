import { describe, expect, it } from "vitest";
import { UsageError } from "./errors.js";
import { lookupRequest } from "./lookups.js";
import { fromChoice, type NodeInfo, probeBody, selectNodes } from "./probe-request.js";

describe("probe bodies per form", () => {
  it("puts options under params in milliseconds in Form A, flat in seconds in Form B", () => {
    const o = { target: "example.com", nodes: ["fra1"], count: 3, timeout: 2 };
    expect(probeBody("a", "ping", o)).toEqual({
      target: "example.com",
      node_ids: ["fra1"],
      params: { count: 3, timeout_ms: 2000 },
    });
    expect(probeBody("b", "ping", o)).toEqual({ host: "example.com", nodes: ["fra1"], count: 3, timeout: 2 });
  });

  it("passes ping's --size, --df and --pmtu in both forms", () => {
    const o = { target: "example.com", size: 1400, df: true, pmtu: true };
    expect(probeBody("a", "ping", o)).toEqual({
      target: "example.com",
      params: { size: 1400, dont_fragment: true, pmtu: true },
    });
    expect(probeBody("b", "ping", o)).toEqual({
      host: "example.com",
      size: 1400,
      dont_fragment: true,
      pmtu: true,
    });
  });

  it("passes dns --protocol/--dnssec/--cd/--nsid/--trace and http --http2 in both forms", () => {
    const o = {
      target: "example.com",
      protocol: "tls",
      dnssec: true,
      cd: true,
      nsid: true,
      trace: undefined,
    };
    const dns = { protocol: "tls", dnssec: true, checking_disabled: true, nsid: true };
    expect(probeBody("a", "dns", o)).toEqual({ target: "example.com", params: dns });
    expect(probeBody("b", "dns", o)).toEqual({ domain: "example.com", ...dns });
    expect(probeBody("b", "dns", { target: "example.com", trace: true })).toEqual({
      domain: "example.com",
      trace: true,
    });
    expect(probeBody("a", "http", { target: "https://example.com/", http2: true })).toEqual({
      target: "https://example.com/",
      params: { http2: true },
    });
    expect(probeBody("b", "http", { target: "https://example.com/", http2: true })).toEqual({
      url: "https://example.com/",
      http2: true,
    });
  });

  it("names the target field of each type in Form B and adds https:// to a bare http target", () => {
    expect(probeBody("b", "http", { target: "example.com", method: "HEAD" })).toEqual({
      url: "https://example.com",
      method: "HEAD",
    });
    expect(probeBody("b", "dns", { target: "example.com", recordType: "MX" })).toEqual({
      domain: "example.com",
      record_type: "MX",
    });
    expect(probeBody("b", "traceroute", { target: "example.com", maxHops: 5 })).toEqual({
      host: "example.com",
      max_hops: 5,
    });
    expect(probeBody("a", "http", { target: "http://example.com/" })).toEqual({
      target: "http://example.com/",
    });
  });

  it("takes the tcp port from --port or host:port, and refuses neither or both differing", () => {
    expect(probeBody("b", "tcp", { target: "[::1]:443" })).toEqual({ host: "::1", port: 443 });
    expect(probeBody("a", "tcp", { target: "example.com", port: 22 })).toEqual({
      target: "example.com",
      params: { port: 22 },
    });
    expect(() => probeBody("a", "tcp", { target: "example.com" })).toThrow(UsageError);
    expect(() => probeBody("b", "tcp", { target: "example.com:80", port: 81 })).toThrow(UsageError);
  });
});

describe("pasted targets", () => {
  it("ping, dns and traceroute take a URL's or host:port's host; tcp also its port, else the scheme's", () => {
    expect(probeBody("b", "ping", { target: "https://example.com:8443/status" })).toEqual({
      host: "example.com",
    });
    expect(probeBody("a", "traceroute", { target: "[2001:db8::1]:443" })).toEqual({ target: "2001:db8::1" });
    expect(probeBody("b", "dns", { target: "example.org/path" })).toEqual({ domain: "example.org" });
    expect(probeBody("a", "ping", { target: "2001:db8::1" })).toEqual({ target: "2001:db8::1" });
    expect(probeBody("b", "tcp", { target: "https://example.com/" })).toEqual({
      host: "example.com",
      port: 443,
    });
    expect(probeBody("b", "tcp", { target: "http://[2001:db8::2]:8080/x" })).toEqual({
      host: "2001:db8::2",
      port: 8080,
    });
    expect(probeBody("a", "tcp", { target: "https://example.com/", port: 8443 })).toEqual({
      target: "example.com",
      params: { port: 8443 },
    });
  });

  it("http sends --family as ip_family in both forms", () => {
    expect(probeBody("a", "http", { target: "https://example.com/", family: "ipv6" })).toEqual({
      target: "https://example.com/",
      params: { ip_family: "ipv6" },
    });
    expect(probeBody("b", "http", { target: "https://example.com/", family: "ipv4" })).toEqual({
      url: "https://example.com/",
      ip_family: "ipv4",
    });
  });

  it("ssl: domain:port, [v6]:port and URLs become q and port", () => {
    expect(lookupRequest("a", "ssl", "example.com:8443", {})).toEqual({
      path: "/v1/info/ssl",
      query: { q: "example.com", port: 8443 },
    });
    expect(lookupRequest("b", "ssl", "https://example.com/login", {}).query).toEqual({
      q: "example.com",
      port: undefined,
    });
    expect(lookupRequest("b", "ssl", "[2001:db8::1]:443", {}).query).toEqual({ q: "2001:db8::1", port: 443 });
    expect(() => lookupRequest("a", "ssl", "example.com:444", { port: 443 })).toThrow(UsageError);
  });
});

describe("node selection", () => {
  const node = (id: string, country: string, status = "online"): NodeInfo => ({
    id,
    name: id,
    country,
    status,
    capabilities: ["http", "ping", "tcp"],
  });
  const nodes = [node("fra1", "DE"), node("fra2", "DE"), node("ber1", "DE", "offline"), node("nyc1", "US")];

  it("turns country codes into that country's online nodes, capped by --limit in turn over the countries", () => {
    expect(selectNodes("ping", nodes, ["DE"], undefined)).toEqual(["fra1", "fra2"]);
    expect(selectNodes("ping", nodes, ["de", "us"], 2)).toEqual(["fra1", "nyc1"]);
    expect(selectNodes("ping", nodes, ["ber1", "US"], undefined)).toEqual(["ber1", "nyc1"]);
  });

  it("spreads --limit over countries without --from, and leaves the choice to the API with neither", () => {
    expect(selectNodes("ping", nodes, undefined, 2)).toEqual(["fra1", "nyc1"]);
    expect(selectNodes("dns", nodes, undefined, 2)).toBeUndefined(); // no node runs dns
    expect(selectNodes("ping", nodes, undefined, undefined)).toBeUndefined();
  });

  it("refuses a country without an online node", () => {
    expect(() => selectNodes("ping", nodes, ["FR"], undefined)).toThrow(/no online node in country FR/);
  });
});

describe("--from as node ids or locations", () => {
  const nodes: NodeInfo[] = [
    { id: "fra1", name: "fra1", country: "DE", status: "online" },
    { id: "nyc1", name: "nyc1", country: "US", status: "online" },
  ];

  it("known node ids go as ids (capped by --limit); anything else as location selectors", () => {
    expect(fromChoice(nodes, ["fra1", "nyc1", "fra1"], undefined)).toEqual({ nodes: ["fra1", "nyc1"] });
    expect(fromChoice(nodes, ["fra1", "nyc1"], 1)).toEqual({ nodes: ["fra1"] });
    expect(fromChoice(nodes, ["DE", "germany+hetzner:2", "europe"], undefined)).toEqual({
      locations: ["DE", { selector: "germany+hetzner", count: 2 }, "europe"],
    });
    // --limit with one selector is its count.
    expect(fromChoice(nodes, ["north-america"], 3)).toEqual({
      locations: [{ selector: "north-america", count: 3 }],
    });
    // A node id among selectors is a selector too (the API says if it is unknown).
    expect(fromChoice(nodes, ["fra1", "US"], undefined)).toEqual({ locations: ["fra1", "US"] });
  });

  it("sends locations in both forms' bodies", () => {
    const locations = ["DE", { selector: "us+aws", count: 2 }];
    expect(probeBody("a", "ping", { target: "example.com", locations })).toEqual({
      target: "example.com",
      locations,
    });
    expect(probeBody("b", "ping", { target: "example.com", locations })).toEqual({
      host: "example.com",
      locations,
    });
  });

  it("mtr: mode, port (udp/tcp only, also from host:port), rounds and max hops in both forms", () => {
    expect(
      probeBody("a", "mtr", { target: "example.com:443", mode: "tcp", rounds: 20, maxHops: 12 }),
    ).toEqual({
      target: "example.com",
      params: { mode: "tcp", port: 443, rounds: 20, max_hops: 12 },
    });
    expect(probeBody("b", "mtr", { target: "https://example.com/x", mode: "udp", port: 53 })).toEqual({
      host: "example.com",
      mode: "udp",
      port: 53,
    });
    // icmp has no port: the host of host:port is taken, --port is refused.
    expect(probeBody("b", "mtr", { target: "example.com:443" })).toEqual({ host: "example.com" });
    expect(() => probeBody("a", "mtr", { target: "example.com", port: 80 })).toThrow(/--mode udp or tcp/);
  });
});
