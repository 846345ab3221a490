import { createSocket } from "node:dgram";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as dnsPacket from "dns-packet";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dnsProbe } from "./dns.js";
import { parseServer, systemResolver } from "./dns-server-address.js";
import type { DnsParams } from "./probe-params.js";
import { type DnsResponder, type DnsTestServer, startDnsServer, zoneAnswer } from "./testing/dns-server.js";

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

/** A response to `query` with one A record for 1.2.3.4, its RDLENGTH set to 400 and only two data bytes. */
function shortARecord(query: dnsPacket.DecodedPacket): Buffer {
  const full = dnsPacket.encode({
    type: "response",
    id: query.id ?? 0,
    questions: query.questions ?? [],
    answers: [{ type: "A", name: "www.example.test", ttl: 60, data: "1.2.3.4" }],
  });
  const short = Buffer.from(full.subarray(0, full.length - 2));
  short.writeUInt16BE(400, full.length - 6);
  return short;
}

/** A header claiming one answer whose name is a compression pointer to itself (offset 12). */
function pointerLoop(id: number): Buffer {
  const msg = Buffer.from([
    0, 0, 0x81, 0x80, 0, 0, 0, 1, 0, 0, 0, 0, 0xc0, 0x0c, 0, 1, 0, 1, 0, 0, 0, 60, 0, 4,
  ]);
  msg.writeUInt16BE(id, 0);
  return Buffer.concat([msg, Buffer.from([1, 2, 3, 4])]);
}

describe("dns probe against a misbehaving server", () => {
  let respond: DnsResponder = zoneAnswer;
  let odd: DnsTestServer;
  beforeAll(async () => {
    odd = await startDnsServer((q, overTcp) => respond(q, overTcp));
  });
  afterAll(() => odd.close());
  const ask = async (timeout_ms: number) => {
    const started = performance.now();
    const outcome = await dnsProbe.run(
      { domain: "www.example.test", record_type: "A", timeout_ms, server: `127.0.0.1:${odd.port}` },
      allow,
    );
    return { outcome, ms: performance.now() - started };
  };
  const otherId = (q: dnsPacket.DecodedPacket) => ((q.id ?? 0) + 1) % 65_536;

  it.each<[string, DnsResponder]>([
    ["an A record whose RDLENGTH overruns the message", shortARecord],
    ["a compression-pointer loop", (q) => pointerLoop(q.id ?? 0)],
    ["a truncated header", (q) => shortARecord(q).subarray(0, 6)],
  ])("ends at once with probe_error on %s carrying the query's id", async (_what, responder) => {
    respond = responder;
    const { outcome, ms } = await ask(5000);
    expect(outcome).toMatchObject({ success: false, latency_ms: null, error: { code: "probe_error" } });
    expect(outcome.error?.message).toMatch(new RegExp(`^malformed answer from 127\\.0\\.0\\.1:${odd.port} `));
    expect(ms).toBeLessThan(2500);
  });

  it("keeps waiting past a malformed datagram with another id, then says it was malformed", async () => {
    respond = (q) => pointerLoop(otherId(q));
    const { outcome } = await ask(300);
    expect(outcome).toMatchObject({ success: false, error: { code: "probe_error" } });
    expect(outcome.error?.message).toMatch(/^malformed answer from .*bad pointer/);
  });

  it("says malformed, not timeout, for a datagram too short to carry an id", async () => {
    respond = () => ({ raw: Buffer.from([0x42]) });
    const { outcome } = await ask(300);
    expect(outcome).toMatchObject({ success: false, error: { code: "probe_error" } });
    expect(outcome.error?.message).toMatch(/malformed answer .*header is 1 bytes/);
  });

  it("still ignores a well-formed answer with another id (a timeout)", async () => {
    respond = (q, overTcp) => zoneAnswer({ ...q, id: otherId(q) }, overTcp);
    const { outcome } = await ask(300);
    expect(outcome).toMatchObject({ success: false, error: { code: "timeout" } });
  });

  it("takes a valid answer that follows a malformed one with another id", async () => {
    const socket = createSocket("udp4");
    await new Promise<void>((r) => socket.bind(0, "127.0.0.1", r));
    socket.on("message", (msg, rinfo) => {
      const q = dnsPacket.decode(msg);
      socket.send(pointerLoop(otherId(q)), rinfo.port, rinfo.address);
      socket.send(zoneAnswer(q, false), rinfo.port, rinfo.address);
    });
    try {
      const o = await query({ domain: "www.example.test", server: `127.0.0.1:${socket.address().port}` });
      expect(o.success, JSON.stringify(o.error)).toBe(true);
      expect(o.detail?.answers).toMatchObject([{ value: "192.0.2.10" }]);
    } finally {
      socket.close();
    }
  });

  it.each<[string, (q: dnsPacket.DecodedPacket) => Buffer | { raw: Buffer }]>([
    ["an A record whose RDLENGTH overruns the message", shortARecord],
    ["a connection closed mid-message", () => ({ raw: Buffer.from([0, 100, 1, 2, 3, 4, 5, 6, 7, 8]) })],
  ])("over TCP, ends with probe_error on %s", async (_what, tcpReply) => {
    respond = (q, overTcp) =>
      overTcp
        ? tcpReply(q)
        : dnsPacket.encode({ type: "response", id: q.id ?? 0, flags: dnsPacket.TRUNCATED_RESPONSE });
    const { outcome, ms } = await ask(5000);
    expect(outcome).toMatchObject({ success: false, error: { code: "probe_error" } });
    expect(outcome.error?.message).toMatch(/^malformed answer from .* over TCP: /);
    expect(ms).toBeLessThan(2500);
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
