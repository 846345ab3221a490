import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dnsProbe } from "./dns.js";
import { type DnsParams, dnsParamsSchema } from "./probe-params.js";
import { type SecureDnsServers, startSecureDns } from "./testing/dns-secure-server.js";
import { type DnsTestServer, startDnsServer } from "./testing/dns-server.js";

const allow = { allowPrivate: true };
let plain: DnsTestServer;
let secure: SecureDnsServers;
beforeAll(async () => {
  plain = await startDnsServer();
  secure = await startSecureDns();
});
afterAll(async () => {
  await plain.close();
  await secure.close();
});

const run = (p: Partial<DnsParams>) =>
  dnsProbe.run({ domain: "www.example.test", record_type: "A", timeout_ms: 3000, ...p }, allow);

describe("dns over TLS and HTTPS, DO/CD flags and NSID (servers on 127.0.0.1)", () => {
  it("DoT: answers over TLS, the server's certificate described (self-signed: not trusted)", async () => {
    const before = secure.seen.length;
    const o = await run({ server: `127.0.0.1:${secure.dotPort}`, protocol: "tls" });
    expect(o.success, JSON.stringify(o.error)).toBe(true);
    expect(o.detail).toMatchObject({ protocol: "tls", resolver_port: secure.dotPort, rcode: "NOERROR" });
    expect(o.detail?.answers[0]?.value).toBe("192.0.2.10");
    expect(o.detail?.tls).toMatchObject({
      authorized: false,
      protocol: expect.stringMatching(/^TLSv1\.[23]$/),
    });
    expect(secure.seen.slice(before)).toEqual([expect.objectContaining({ via: "tls" })]);
  });

  it.each(["POST", "GET"] as const)("DoH by %s (RFC 8484) to the URL's path", async (method) => {
    const before = secure.seen.length;
    const o = await run({
      server: `https://127.0.0.1:${secure.dohPort}/dns-query`,
      protocol: "https",
      doh_method: method,
    });
    expect(o.success, JSON.stringify(o.error)).toBe(true);
    expect(o.detail).toMatchObject({
      protocol: "https",
      resolver: "127.0.0.1",
      resolver_port: secure.dohPort,
    });
    expect(o.detail?.answers[0]?.value).toBe("192.0.2.10");
    expect(o.detail?.tls?.fingerprint_sha256).toMatch(/^[0-9A-F:]+$/);
    expect(secure.seen.slice(before)).toEqual([
      expect.objectContaining({ via: `https-${method.toLowerCase()}` }),
    ]);
  });

  it("DoH to a path that is not a DoH endpoint fails with the HTTP status", async () => {
    const o = await run({ server: `https://127.0.0.1:${secure.dohPort}/nope`, protocol: "https" });
    expect(o).toMatchObject({ success: false, error: { code: "probe_error" } });
    expect(o.error?.message).toContain("HTTP 404");
  });

  it("sends DO, CD and NSID as asked; the answer's flags and NSID come back", async () => {
    const before = secure.seen.length;
    const o = await run({
      server: `127.0.0.1:${secure.dotPort}`,
      protocol: "tls",
      dnssec: true,
      checking_disabled: true,
      nsid: true,
    });
    expect(o.success, JSON.stringify(o.error)).toBe(true);
    expect(secure.seen.slice(before)).toEqual([
      { via: "tls", cd: true, rd: true, dnssecOk: true, nsid: true },
    ]);
    expect(o.detail?.nsid).toBe("lab-ns1");
    expect(o.detail?.flags).toEqual(expect.arrayContaining(["qr", "rd", "cd"]));
    // Without them: none sent, no nsid field.
    const p = await run({ server: `127.0.0.1:${secure.dotPort}`, protocol: "tls" });
    expect(secure.seen.at(-1)).toMatchObject({ cd: false, dnssecOk: false, nsid: false });
    expect(p.detail).not.toHaveProperty("nsid");
    expect(p.detail?.flags).not.toContain("cd");
  });

  it("a server that sends no NSID gives nsid null; protocol tcp skips UDP", async () => {
    const before = { ...plain.seen };
    const o = await run({ server: `127.0.0.1:${plain.port}`, protocol: "tcp", nsid: true });
    expect(o.success, JSON.stringify(o.error)).toBe(true);
    expect(o.detail).toMatchObject({ protocol: "tcp", truncated: false, nsid: null });
    expect(plain.seen).toEqual({ udp: before.udp, tcp: before.tcp + 1 });
  });

  it("plain queries keep their old result shape (no flags, nsid or tls)", async () => {
    const o = await run({ server: `127.0.0.1:${plain.port}` });
    expect(Object.keys(o.detail ?? {}).sort()).toEqual(
      ["answers", "protocol", "query_time_ms", "rcode", "resolver", "resolver_port", "truncated"].sort(),
    );
  });

  it("refuses conflicting options with the field named", () => {
    const issues = (p: Record<string, unknown>) =>
      dnsParamsSchema
        .safeParse({ domain: "example.test", ...p })
        .error?.issues.map((i) => [i.path.join("."), i.message]);
    expect(issues({ protocol: "https" })).toEqual([["server", "protocol https needs the DoH URL here"]]);
    expect(issues({ protocol: "https", server: "1.1.1.1" })?.[0]?.[0]).toBe("server");
    expect(issues({ server: "https://dns.example/dns-query" })?.[0]?.[0]).toBe("server");
    expect(issues({ doh_method: "GET" })).toEqual([["doh_method", "only with protocol https"]]);
    expect(issues({ trace: true, server: "192.0.2.1" })?.[0]?.[0]).toBe("server");
    expect(issues({ trace: true, protocol: "tls" })?.[0]?.[0]).toBe("protocol");
    expect(issues({ trace: true, protocol: "tcp" })).toBeUndefined();
  });
});
