import { createSocket } from "node:dgram";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dnsProbe } from "./dns.js";
import { parseServer, systemResolver } from "./dns-server-address.js";
import { type DnsTestServer, startDnsServer } from "./testing/dns-server.js";
import type { DnsParams } from "./types.js";

const allow = { allowPrivate: true };
let server: DnsTestServer;
beforeAll(async () => {
  server = await startDnsServer();
});
afterAll(() => server.close());

const query = (p: Partial<DnsParams> & Pick<DnsParams, "domain">, ctx = allow) =>
  dnsProbe.run({ record_type: "A", timeout_ms: 2000, server: `127.0.0.1:${server.port}`, ...p }, ctx);

describe("dns probe", () => {
  it.each([
    ["A", "www.example.test", "192.0.2.10"],
    ["AAAA", "www.example.test", "2001:db8::10"],
    ["MX", "example.test", "10 mail.example.test."],
    ["NS", "example.test", "ns1.example.test."],
    ["CNAME", "alias.example.test", "www.example.test."],
    ["TXT", "example.test", '"v=spf1 -all" "say \\"hi\\""'],
    ["SOA", "example.test", "ns1.example.test. hostmaster.example.test. 2026112201 7200 900 1209600 300"],
  ] as const)("%s %s: value formatted as dig prints it", async (type, domain, value) => {
    const o = await query({ domain, record_type: type });
    expect(o.success, JSON.stringify(o.error)).toBe(true);
    expect(o.detail).toMatchObject({
      resolver: "127.0.0.1",
      resolver_port: server.port,
      protocol: "udp",
      rcode: "NOERROR",
      truncated: false,
    });
    expect(o.detail?.answers).toEqual([{ name: `${domain}.`, type, ttl: expect.any(Number), value }]);
    expect(o.detail?.query_time_ms).toBeGreaterThan(0);
    expect(o.latency_ms).toBe(o.detail?.query_time_ms);
  });

  it("reports NXDOMAIN as an answer, not a failure", async () => {
    const o = await query({ domain: "missing.example.test" });
    expect(o.success).toBe(true);
    expect(o.detail).toMatchObject({ rcode: "NXDOMAIN", answers: [] });
  });

  it("retries over TCP when the UDP answer is truncated", async () => {
    const before = { ...server.seen };
    const o = await query({ domain: "big.example.test", record_type: "TXT" });
    expect(o.success, JSON.stringify(o.error)).toBe(true);
    expect(o.detail).toMatchObject({ protocol: "tcp", truncated: true });
    expect(o.detail?.answers).toHaveLength(1);
    expect(o.detail?.answers[0]?.value).toBe(
      `"${"x".repeat(200)}" "${"y".repeat(200)}" "${"z".repeat(200)}"`,
    );
    expect(server.seen.udp - before.udp).toBe(1);
    expect(server.seen.tcp - before.tcp).toBe(1);
  });

  it("queries an IPv6 server given as [addr]:port, over UDP and TCP", async () => {
    const a = await query({
      domain: "www.example.test",
      record_type: "AAAA",
      server: `[::1]:${server.port}`,
    });
    expect(a.detail).toMatchObject({
      resolver: "::1",
      protocol: "udp",
      answers: [{ value: "2001:db8::10" }],
    });
    const big = await query({
      domain: "big.example.test",
      record_type: "TXT",
      server: `[::1]:${server.port}`,
    });
    expect(big.detail).toMatchObject({ resolver: "::1", protocol: "tcp" });
  });

  // Replies come from the kernel's form of the address (`::1`, `::ffff:127.0.0.1`), not the one written.
  it.each(["0:0:0:0:0:0:0:1", "::ffff:7f00:1"])(
    "accepts the answer of a server written as [%s]:port, over UDP and TCP",
    async (address) => {
      const udp = await query({ domain: "www.example.test", server: `[${address}]:${server.port}` });
      expect(udp.success, JSON.stringify(udp.error)).toBe(true);
      expect(udp.detail).toMatchObject({
        resolver: address,
        protocol: "udp",
        answers: [{ value: "192.0.2.10" }],
      });
      const big = await query({
        domain: "big.example.test",
        record_type: "TXT",
        server: `[${address}]:${server.port}`,
      });
      expect(big.success, JSON.stringify(big.error)).toBe(true);
      expect(big.detail).toMatchObject({ protocol: "tcp", truncated: true });
    },
  );

  it("times out against a server that never answers", async () => {
    const silent = createSocket("udp4");
    await new Promise<void>((r) => silent.bind(0, "127.0.0.1", r));
    const o = await query({
      domain: "www.example.test",
      server: `127.0.0.1:${silent.address().port}`,
      timeout_ms: 200,
    });
    silent.close();
    expect(o).toMatchObject({ success: false, latency_ms: null, error: { code: "timeout" } });
  });

  it("refuses a private resolver named by the caller unless allowed", async () => {
    const o = await query({ domain: "www.example.test" }, { allowPrivate: false });
    expect(o).toMatchObject({ success: false, error: { code: "target_not_allowed" } });
  });
});

describe("server addresses", () => {
  it.each([
    ["192.0.2.53", { host: "192.0.2.53", port: 53 }],
    ["192.0.2.53:5353", { host: "192.0.2.53", port: 5353 }],
    ["2001:db8::53", { host: "2001:db8::53", port: 53 }],
    ["[2001:db8::53]", { host: "2001:db8::53", port: 53 }],
    ["[2001:db8::53]:5353", { host: "2001:db8::53", port: 5353 }],
    ["ns.example.test:54", { host: "ns.example.test", port: 54 }],
  ])("parses %s", (text, expected) => {
    expect(parseServer(text)).toEqual(expected);
  });

  it.each(["[::1", "host:", "host:0", "host:70000", "[::1]x"])("rejects %s", (text) => {
    expect(() => parseServer(text)).toThrow(expect.objectContaining({ code: "invalid_target" }));
  });

  it("takes the first nameserver of resolv.conf, zone id dropped", async () => {
    const dir = mkdtempSync(join(tmpdir(), "vantage-resolv-"));
    const file = join(dir, "resolv.conf");
    writeFileSync(file, "# comment\nsearch example.test\nnameserver fe80::1%eth0\nnameserver 192.0.2.1\n");
    expect(await systemResolver(file)).toEqual({ host: "fe80::1", port: 53 });
    expect(await systemResolver(join(dir, "missing"))).toEqual({ host: "127.0.0.1", port: 53 });
    rmSync(dir, { recursive: true, force: true });
  });
});
