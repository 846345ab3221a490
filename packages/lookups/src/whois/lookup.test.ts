import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runLookup } from "../registry.js";
import { failure } from "../testing/failure.js";
import { whoisLookup } from "./lookup.js";
import { startWorld, type World } from "./testing/world.js";

// Loopback servers only (testing/world.ts); the answers are hand-written fixtures (fixtures/README.md).
let w: World;
beforeAll(async () => {
  w = await startWorld();
});
afterAll(() => w.close());

const run = (query: string, ctx = w.ctx()) => whoisLookup.run({ query }, ctx);

describe("whois lookup: RDAP", () => {
  it("a .com record: registrar, expiry, name servers (unique, sorted, no dot); no second request", async () => {
    const before = w.rdap.seen.length;
    expect(await run("example.com")).toEqual({
      domain: "example.com",
      registrar: "Example Registrar, Inc.",
      expires_at: "2026-08-13",
      name_servers: ["ns1.example-dns.net", "ns2.example-dns.net"],
      source: "rdap",
      server: `${w.rdap.url}/com/`,
    });
    expect(w.rdap.seen.slice(before)).toEqual([
      { path: "/com/domain/example.com", accept: "application/rdap+json, application/json;q=0.9" },
    ]);
  });

  it("a thin record: follows its related link once, only for what is missing (the expiry)", async () => {
    const before = w.rdap.seen.length;
    const result = await run("example-thin.com");
    expect(result).toMatchObject({
      registrar: "Example Registrar, Inc.",
      expires_at: "2027-08-13",
      name_servers: ["ns1.example-dns.net", "ns2.example-dns.net"],
      source: "rdap",
      server: `${w.rdap.url}/com/`,
    });
    expect(w.rdap.seen.slice(before).map((s) => s.path)).toEqual([
      "/com/domain/example-thin.com",
      "/registrar/domain/EXAMPLE.COM",
    ]);
  });

  it("a ccTLD record: expiry with an offset converted to UTC, a lone name-server object", async () => {
    expect(await run("example.exampletld")).toMatchObject({
      registrar: "Example ccTLD Registrar AS",
      expires_at: "2027-05-01",
      name_servers: ["ns.example-dns.exampletld"],
      source: "rdap",
    });
  });

  it("a 404 means the name is not registered: not_found, and port 43 is not asked", async () => {
    const before = w.registry.seen.length;
    const error = await failure(run("no-such-name.com"));
    expect(error.code).toBe("not_found");
    expect(w.registry.seen.length).toBe(before);
  });

  it("an IP: the network's registrant as registrar, the network's name, range, CIDR and country", async () => {
    expect(await run("192.0.2.1")).toEqual({
      domain: "192.0.2.1",
      registrar: "Example Networks LLC",
      expires_at: null,
      name_servers: [],
      source: "rdap",
      server: `${w.rdap.url}/ip/`,
      network: {
        name: "TEST-NET-1",
        start: "192.0.2.0",
        end: "192.0.2.255",
        cidr: "192.0.2.0/24",
        country: "US",
      },
    });
  });
});

describe("whois lookup: falling back to port 43", () => {
  it("RDAP 500 → WHOIS (.cn, CNNIC format)", async () => {
    expect(await run("example.cn")).toEqual({
      domain: "example.cn",
      registrar: "阿里云计算有限公司（万网）",
      expires_at: "2027-03-17",
      name_servers: ["ns1.example-dns.cn", "ns2.example-dns.cn"],
      source: "whois",
      server: w.registry.address,
    });
  });

  it("RDAP answering something that is not an RDAP object → WHOIS (.uk, Nominet format)", async () => {
    expect(await run("example.co.uk")).toMatchObject({
      registrar: "Example Registrar Ltd t/a Example Hosting",
      expires_at: "2027-03-17",
      source: "whois",
    });
  });

  it("RDAP hanging → WHOIS within the lookup's time (RDAP gets two thirds of it)", async () => {
    const started = performance.now();
    const result = await run("example.jp", w.ctx({ timeoutMs: 900 }));
    expect(result).toMatchObject({ expires_at: "2027-03-31", source: "whois" });
    const ms = performance.now() - started;
    expect(ms).toBeGreaterThanOrEqual(550);
    expect(ms).toBeLessThan(900);
  });

  it("RDAP failing and WHOIS failing → WHOIS's error, RDAP's named in the message", async () => {
    const ctx = w.ctx();
    const error = await failure(
      run("example.cn", { ...ctx, whois: { ...ctx.whois, whoisServers: { cn: "127.0.0.1:9" } } }),
    );
    expect(error.code).toBe("upstream_error");
    expect(error.message).toMatch(/127\.0\.0\.1:9: ECONNREFUSED.*after RDAP.*HTTP 500/);
  });

  it("no RDAP for an IP → ARIN's stand-in, then the one referral to the RIR, whose record wins", async () => {
    const result = await run("193.0.6.139", w.whoisOnly());
    expect(result).toEqual({
      domain: "193.0.6.139",
      registrar: "Reseaux IP Europeens Network Coordination Centre (RIPE NCC)",
      expires_at: null,
      name_servers: [],
      source: "whois",
      server: w.registrar.address,
      network: { name: "RIPE-NCC", start: "193.0.0.0", end: "193.0.7.255", cidr: null, country: "NL" },
    });
    expect(w.registry.seen).toContain("n + 193.0.6.139");
  });
});

describe("whois lookup: input and the guard", () => {
  it("normalises the query through runLookup: case, trailing dot, IDN, IPv6 form", async () => {
    expect((await runLookup("whois", { query: " EXAMPLE.com. " }, w.ctx())).domain).toBe("example.com");
    expect(whoisLookup.inputSchema.parse({ query: "Müller-Example.de" })).toEqual({
      query: "xn--mller-example-wob.de",
    });
    expect(whoisLookup.inputSchema.parse({ query: "2001:DB8:0:0::1" })).toEqual({ query: "2001:db8::1" });
    expect(whoisLookup.inputSchema.parse({ query: "[2001:db8::1]" })).toEqual({ query: "2001:db8::1" });
  });

  it.each(["", "not a domain", "a..b", "http://example.com/", "999.1.1.1", "fe80::1%eth0"])(
    "refuses %j with invalid_input on the path query",
    async (query) => {
      const error = await failure(runLookup("whois", { query }, w.ctx()));
      expect(error.code).toBe("invalid_input");
      expect(error.issues[0]?.path).toBe("query");
    },
  );

  it("refuses the loopback servers when allowPrivate is false, before sending anything", async () => {
    const seen = { rdap: w.rdap.seen.length, registry: w.registry.seen.length };
    for (const query of ["example.com", "example.de", "192.0.2.1"]) {
      const error = await failure(run(query, w.ctx({ allowPrivate: false })));
      expect(error.code).toBe("target_not_allowed");
      expect(error.message).toMatch(/loopback/);
    }
    expect({ rdap: w.rdap.seen.length, registry: w.registry.seen.length }).toEqual(seen);
  });

  it("stops at once when the caller aborts", async () => {
    const controller = new AbortController();
    const started = performance.now();
    const pending = run("example.hangtld", w.whoisOnly({ timeoutMs: 5000, signal: controller.signal }));
    setTimeout(() => controller.abort(), 50);
    const error = await failure(pending);
    expect(error.code).toBe("upstream_timeout");
    expect(performance.now() - started).toBeLessThan(1000);
  });
});
