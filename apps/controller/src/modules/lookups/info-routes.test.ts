import { type DnsTestServer, startDnsServer, zoneAnswer } from "@vantage/probes/testing/dns-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshMinute } from "../../testing/fresh-window.js";
import { forms, planLimitsEnv } from "../../testing/test-app.js";
import { useTestDb } from "../../testing/use-test-db.js";

// The resolver is a loopback fixture server; every other name is refused by the test app's own lookup.
let dns: DnsTestServer;
/** A resolver that answers REFUSED to MX queries and from the zone to the rest. */
let noMx: DnsTestServer;
beforeAll(async () => {
  dns = await startDnsServer();
  noMx = await startDnsServer((query, overTcp) => {
    const reply = zoneAnswer(query, overTcp);
    if (query.questions?.[0]?.type === "MX") reply.writeUInt8((reply.readUInt8(3) & 0xf0) | 5, 3);
    return reply;
  });
});
afterAll(async () => {
  await dns.close();
  await noMx.close();
});

/** The query of a lookup in the form's names: Form A calls the main parameter `q`. */
const q = (form: "a" | "b", bName: string, value: string) =>
  `${form === "a" ? "q" : bName}=${encodeURIComponent(value)}`;

describe.each(forms)("lookup routes, Form %s", (form) => {
  const db = useTestDb("pglite");
  const app = () => db.app(form, { VANTAGE_DNS_RESOLVER: `127.0.0.1:${dns.port}` });

  it("DNS records: every type with TTLs, then the same answer from the cache", async () => {
    const t = app();
    const path = `/v1/info/dns?${q(form, "domain", "Example.TEST")}`;
    const first = await t.call("GET", path);
    expect(first.status).toBe(200);
    expect(first.body.data).toMatchObject({ domain: "example.test", status: "NOERROR", cached: false });
    expect(first.body.data.records).toEqual(
      expect.arrayContaining([
        { type: "MX", value: "10 mail.example.test.", ttl: 3600 },
        { type: "NS", value: "ns1.example.test.", ttl: 86400 },
      ]),
    );
    const second = await t.call("GET", path);
    expect(second.body.data).toEqual({ ...first.body.data, cached: true });
  });

  it("DNS records: a type the resolver refuses is named in failed_types, the rest answered, not cached", async () => {
    const t = db.app(form, { VANTAGE_DNS_RESOLVER: `127.0.0.1:${noMx.port}` });
    const path = `/v1/info/dns?${q(form, "domain", "example.test")}`;
    const first = await t.call("GET", path);
    expect(first.status, first.text).toBe(200);
    expect(first.body.data.records.map((r: { type: string }) => r.type)).toEqual(["TXT", "NS", "SOA"]);
    expect(first.body.data.failed_types).toEqual([
      { type: "MX", code: "upstream_error", message: expect.stringContaining("REFUSED") },
    ]);
    expect((await t.call("GET", path)).body.data).toEqual(first.body.data);
    // Only MX asked, and refused: the lookup fails.
    const mx = await t.call("GET", `${path}&type=MX`);
    expect(mx.status).toBe(502);
    expect(mx.body.error.code).toBe("upstream_error");
  });

  it("DNS records: one type; a name that does not exist is a 200 with status NXDOMAIN", async () => {
    const t = app();
    const one = await t.call("GET", `/v1/info/dns?${q(form, "domain", "www.example.test")}&type=aaaa`);
    expect(one.body.data.records).toEqual([{ type: "AAAA", value: "2001:db8::10", ttl: 300 }]);
    const missing = await t.call("GET", `/v1/info/dns?${q(form, "domain", "missing.example.test")}`);
    expect(missing.status).toBe(200);
    expect(missing.body.data).toEqual({
      domain: "missing.example.test",
      status: "NXDOMAIN",
      records: [],
      cached: false,
    });
  });

  it("bad input is a 400 naming the form's query parameter", async () => {
    const t = app();
    const name = form === "a" ? "q" : "domain";
    const absent = await t.call("GET", "/v1/info/dns");
    expect(absent.status).toBe(400);
    expect(absent.body.error.code).toBe("validation_error");
    expect(absent.body.error.details[0].path).toBe(`query.${name}`);

    const bad = await t.call("GET", `/v1/info/dns?${q(form, "domain", "not a domain")}`);
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ code: "validation_error" });
    expect(bad.body.error.details[0].path).toBe(`query.${name}`);

    const type = await t.call("GET", `/v1/info/dns?${q(form, "domain", "example.test")}&type=PTR`);
    expect(type.status).toBe(400);
    expect(type.body.error.details[0].path).toBe("query.type");

    const unknown = await t.call("GET", `/v1/info/dns?${q(form, "domain", "example.test")}&extra=1`);
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.code).toBe("unknown_field");
  });

  it("IP: the facts that do not change, with the data's version and attribution", async () => {
    const t = app();
    const cases = [
      ["8.8.8.8", "US", "AS15169"],
      ["1.1.1.1", undefined, "AS13335"],
      ["2001:4860:4860::8888", undefined, "AS15169"],
    ] as const;
    for (const [ip, country, asn] of cases) {
      const res = await t.call("GET", `/v1/info/ip?${q(form, "ip", ip)}`);
      expect(res.status, ip).toBe(200);
      expect(res.body.data).toMatchObject({ ip, asn, reserved: false, cached: false });
      if (country) expect(res.body.data).toMatchObject({ country, country_name: "United States" });
      expect(res.body.data.data_version).toMatch(/^\d+\.\d+\.\d{10}$/);
      expect(res.body.data.attribution).toContain("DB-IP");
    }
  });

  it("IP: a private address is answered as reserved; garbage is a 400", async () => {
    const t = app();
    const priv = await t.call("GET", `/v1/info/ip?${q(form, "ip", "10.1.2.3")}`);
    expect(priv.status).toBe(200);
    expect(priv.body.data).toMatchObject({ ip: "10.1.2.3", reserved: true, country: null, asn: null });
    const bad = await t.call("GET", `/v1/info/ip?${q(form, "ip", "999.1.1.1")}`);
    expect(bad.status).toBe(400);
    expect(bad.body.error.details[0].path).toBe(form === "a" ? "query.q" : "query.ip");
  });

  it("SSL and WHOIS: a name nobody can resolve is a 502, never a hang or a 500", async () => {
    const t = app();
    const ssl = await t.call("GET", "/v1/info/ssl?q=unresolvable.example.test");
    expect(ssl.status).toBe(502);
    expect(ssl.body.error.code).toBe("upstream_error");
    const port = await t.call("GET", "/v1/info/ssl?q=example.test&port=70000");
    expect(port.status).toBe(400);
    expect(port.body.error.details[0].path).toBe("query.port");
  });

  it("ICP: with no provider and the site out of reach, 503 source_unavailable", async () => {
    const t = app();
    const res = await t.call("GET", `/v1/info/icp?${q(form, "domain", "unreachable.example.test")}`);
    expect(res.status).toBe(503);
    expect(res.body.error.code).toBe("source_unavailable");
  });
});

describe.each(forms)("lookup quota, Form %s", (form) => {
  const db = useTestDb("pglite");

  it("counts lookups per client IP; over the limit 429 with Retry-After; bad input costs nothing", async () => {
    const t = db.app(form, { VANTAGE_PLAN_LIMITS: planLimitsEnv({ anonymous: { lookups_per_minute: 2 } }) });
    await freshMinute(5_000);
    const path = `/v1/info/ip?${q(form, "ip", "10.0.0.1")}`;
    const first = await t.call("GET", path);
    expect(first.headers.get("ratelimit-limit")).toBe("2");
    expect(first.headers.get("ratelimit-remaining")).toBe("1");
    expect((await t.call("GET", `/v1/info/ip?${q(form, "ip", "nope")}`)).status).toBe(400);
    expect((await t.call("GET", path)).status).toBe(200);
    const over = await t.call("GET", path);
    expect(over.status).toBe(429);
    expect(over.body.error.code).toBe("rate_limited");
    expect(Number(over.headers.get("retry-after"))).toBeGreaterThan(0);
  });
});

describe("Form B: the caller's own address", () => {
  const db = useTestDb("pglite");

  it("without ip (or blank) looks up the caller; X-Forwarded-For only from a trusted proxy", async () => {
    const direct = db.app("b");
    for (const path of ["/v1/info/ip", "/v1/info/ip?ip=", "/v1/info/ip?ip=%20"]) {
      const res = await direct.call("GET", path, { headers: { "x-forwarded-for": "8.8.8.8" } });
      expect(res.status, path).toBe(200);
      expect(res.body.data, path).toMatchObject({ ip: "127.0.0.1", reserved: true, range: "loopback" });
    }
    const proxied = db.app("b", { VANTAGE_TRUSTED_PROXIES: "127.0.0.1" });
    const res = await proxied.call("GET", "/v1/info/ip", { headers: { "x-forwarded-for": "8.8.8.8" } });
    expect(res.body.data).toMatchObject({ ip: "8.8.8.8", asn: "AS15169", reserved: false });
  });

  it("Form A has no such default: q is required", async () => {
    const res = await db.app("a").call("GET", "/v1/info/ip");
    expect(res.status).toBe(400);
    expect(res.body.error.details[0].path).toBe("query.q");
  });
});
