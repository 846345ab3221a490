import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runLookup } from "../registry.js";
import { failure } from "../testing/failure.js";
import { startWhoisServer } from "./testing/servers.js";
import { startWorld, type World } from "./testing/world.js";

// Loopback servers only (testing/world.ts); the answers are hand-written fixtures (fixtures/README.md).
let w: World;
beforeAll(async () => {
  w = await startWorld();
});
afterAll(() => w.close());

// Through runLookup, as the controller calls it: the query is normalised first (IDN → punycode).
const run = (query: string, ctx = w.whoisOnly()) => runLookup("whois", { query }, ctx);

describe("whois lookup over port 43: registries and their query syntax", () => {
  it.each([
    [
      "example.co.uk",
      "example.co.uk",
      { registrar: "Example Registrar Ltd t/a Example Hosting", expires_at: "2027-03-17" },
    ],
    ["müller-example.de", "-T dn,ace xn--mller-example-wob.de", { registrar: null, expires_at: null }],
    ["example.jp", "example.jp/e", { registrar: null, expires_at: "2027-03-31" }],
    ["example.co.jp", "example.co.jp/e", { registrar: null, expires_at: "2027-03-31" }],
    ["example.cn", "example.cn", { registrar: "阿里云计算有限公司（万网）", expires_at: "2027-03-17" }],
  ])("%s: asked as %j", async (query, line, fields) => {
    const before = w.registry.seen.length;
    const result = await run(query);
    expect(result).toMatchObject({ ...fields, source: "whois", server: w.registry.address });
    expect(result.name_servers.length).toBe(2);
    expect(w.registry.seen.slice(before)).toEqual([line]);
  });

  it("a complete registry answer (.com, Verisign syntax): no registrar hop", async () => {
    const before = { registry: w.registry.seen.length, registrar: w.registrar.seen.length };
    expect(await run("example.com")).toEqual({
      domain: "example.com",
      registrar: "Example Registrar, Inc.",
      expires_at: "2026-08-13",
      name_servers: ["ns1.example-dns.net", "ns2.example-dns.net"],
      source: "whois",
      server: w.registry.address,
    });
    expect(w.registry.seen.slice(before.registry)).toEqual(["DOMAIN example.com"]);
    expect(w.registrar.seen.length).toBe(before.registrar);
  });

  it("a thin answer: one hop to the registrar's server, which fills the gaps; its own referral not followed", async () => {
    const before = w.registrar.seen.length;
    expect(await run("example-thin.com")).toMatchObject({
      registrar: "Example Registrar, Inc.",
      expires_at: "2027-02-01",
      name_servers: ["ns1.example-dns.net", "ns2.example-dns.net"],
      server: w.registry.address,
    });
    // The registrar's answer refers to 127.0.0.1:9, where nothing listens: never asked, or this would fail.
    expect(w.registrar.seen.slice(before)).toEqual(["example-thin.com"]);
  });

  it("never asks a server twice: a registry referring to itself is not asked again", async () => {
    const before = w.registry.seen.length;
    const result = await run("self-referring.com");
    expect(result).toMatchObject({ registrar: null, expires_at: null, name_servers: [] });
    expect(w.registry.seen.slice(before)).toEqual(["DOMAIN self-referring.com"]);
  });

  it("a TLD neither the overrides nor the table know: IANA's referral, then the registry", async () => {
    const before = w.iana.seen.length;
    expect(await run("example.exampletld2")).toMatchObject({
      registrar: "Example Registrar, Inc.",
      source: "whois",
      server: w.registry.address,
    });
    expect(w.iana.seen.slice(before)).toEqual(["exampletld2"]);
  });

  it("a TLD IANA does not know → not_found", async () => {
    expect((await failure(run("example.nosuchtld"))).code).toBe("not_found");
  });

  it.each(["no-such-name.co.uk", "no-such-name.com"])(
    "%s: the registry's not-found text → not_found",
    async (q) => {
      expect((await failure(run(q))).code).toBe("not_found");
    },
  );

  it("an answer that is no record (a rate-limit notice) → upstream_error", async () => {
    const error = await failure(run("rate-limited.com"));
    expect(error.code).toBe("upstream_error");
    expect(error.message).toMatch(/holds no WHOIS record/);
  });
});

describe("whois lookup over port 43: failures", () => {
  it("a server that never answers → upstream_timeout when the lookup's time is up", async () => {
    const started = performance.now();
    const error = await failure(run("example.hangtld", w.whoisOnly({ timeoutMs: 300 })));
    const ms = performance.now() - started;
    expect(error.code).toBe("upstream_timeout");
    expect(error.message).toContain(w.silent.address);
    expect(ms).toBeGreaterThanOrEqual(280);
    expect(ms).toBeLessThan(1000);
  });

  it("an answer over 64 KiB → upstream_error, the connection cut", async () => {
    const error = await failure(run("huge.com"));
    expect(error.code).toBe("upstream_error");
    expect(error.message).toMatch(/over 64 KiB/);
  });

  it("a server that refuses the connection → upstream_error", async () => {
    const ctx = w.whoisOnly();
    const error = await failure(
      run("example.com", { ...ctx, whois: { ...ctx.whois, whoisServers: { com: "127.0.0.1:9" } } }),
    );
    expect(error.code).toBe("upstream_error");
    expect(error.message).toContain("ECONNREFUSED");
  });

  it("a server with no route to it → upstream_error that says so", async () => {
    const ctx = w.whoisOnly();
    const error = await failure(
      run("example.com", {
        ...ctx,
        whois: { ...ctx.whois, whoisServers: { com: "127.255.255.255:43" } },
      }),
    );
    expect(error.code).toBe("upstream_error");
    expect(error.message).toContain("no route to the network of 127.255.255.255 (connect ENETUNREACH)");
  });

  it("the guard refuses 127.0.0.1 when allowPrivate is false, before connecting", async () => {
    let connections = 0;
    const probe = await startWhoisServer(() => {
      connections++;
      return "Domain Name: EXAMPLE.COM\r\n";
    });
    try {
      const ctx = w.whoisOnly({ allowPrivate: false });
      const error = await failure(
        run("example.com", { ...ctx, whois: { ...ctx.whois, whoisServers: { com: probe.address } } }),
      );
      expect(error.code).toBe("target_not_allowed");
      expect(error.message).toMatch(/127\.0\.0\.1 is in a loopback range/);
      expect(connections).toBe(0);
    } finally {
      await probe.close();
    }
  });
});
