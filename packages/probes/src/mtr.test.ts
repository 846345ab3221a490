import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { READ_GRACE_MS } from "./clock.js";
import { mtrProbe } from "./mtr.js";
import { buildTcpSyn, parseQuotedTransport, parseTcpSegment } from "./mtr-packet.js";
import type { MtrParams } from "./probe-params.js";
import { runProbe } from "./registry.js";
import { withLoopHeld } from "./testing/held-loop.js";
import type { ProbeContext } from "./types.js";

const allow = { allowPrivate: true };
const mtr = (host: string, extra: Partial<MtrParams> = {}, ctx: ProbeContext = allow) =>
  mtrProbe.run(
    { host, mode: "icmp", rounds: 3, max_hops: 5, interval_ms: 100, timeout_ms: 100, ...extra },
    ctx,
  );

describe("mtr probe (raw sockets, root)", () => {
  let server: net.Server;
  let openPort = 0;
  beforeAll(async () => {
    server = net.createServer((s) => s.destroy());
    await new Promise<void>((resolve) => server.listen(0, "::", resolve));
    openPort = (server.address() as net.AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const cases: [string, MtrParams["mode"], () => number | undefined][] = [
    ["127.0.0.1", "icmp", () => undefined],
    ["::1", "icmp", () => undefined],
    ["127.0.0.1", "udp", () => undefined],
    ["::1", "udp", () => 33_500],
    ["127.0.0.1", "tcp", () => openPort],
    ["::1", "tcp", () => openPort],
    ["127.0.0.1", "tcp", () => 1], // closed: the target answers RST, which reaches it all the same
  ];
  it.each(cases)("reaches %s over %s in one hop, every round answered", async (host, mode, port) => {
    const o = await mtr(host, { mode, port: port() });
    expect(o.success, JSON.stringify(o.error)).toBe(true);
    const d = o.detail!;
    expect(d).toMatchObject({ resolved_ip: host, mode, rounds: 3, reached: true });
    expect(d.port).toBe(mode === "icmp" ? null : (port() ?? 33434));
    expect(d.hops).toHaveLength(1);
    const hop = d.hops[0]!;
    expect(hop).toMatchObject({ hop: 1, ip: host, ips: [host], sent: 3, received: 3, loss_pct: 0 });
    expect(hop.best).toBeLessThanOrEqual(hop.avg!);
    expect(hop.avg).toBeLessThanOrEqual(hop.worst!);
    expect(hop.stdev).toBeGreaterThanOrEqual(0);
    expect(o.latency_ms).toBe(hop.avg);
  });

  it("refuses loopback unless private targets are allowed", async () => {
    const o = await mtr("localhost", {}, { allowPrivate: false });
    expect(o).toMatchObject({ success: false, error: { code: "target_not_allowed" } });
  });

  it("validates its params through the registry: at most 100 rounds", async () => {
    const o = await runProbe({ type: "mtr", params: { host: "127.0.0.1", rounds: 101 } } as never, allow);
    expect(o).toMatchObject({ success: false, error: { code: "invalid_target" } });
    expect(o.error?.message).toContain("rounds");
  });

  it("reports the run so far after each round but the last, sent growing round by round", async () => {
    const seen: Array<{ rounds: number; sent: number }> = [];
    const o = await mtr(
      "127.0.0.1",
      { rounds: 4 },
      {
        ...allow,
        onProgress: (d) => {
          const hops = d.hops as Array<{ sent: number }>;
          seen.push({ rounds: d.rounds as number, sent: hops[0]?.sent ?? 0 });
        },
      },
    );
    expect(o.success, JSON.stringify(o.error)).toBe(true);
    expect(seen).toEqual([
      { rounds: 1, sent: 1 },
      { rounds: 2, sent: 2 },
      { rounds: 3, sent: 3 },
    ]);
    expect(o.detail?.hops[0]?.sent).toBe(4);
  });

  it("counts a reply that came in time but was read late: a stalled process is not loss on the path", async () => {
    // Held 300 ms after each probe's 150 ms wait began: the replies wait in the socket as the timers expire.
    const o = await withLoopHeld(150, 300, () =>
      mtr("127.0.0.1", { rounds: 2, max_hops: 1, interval_ms: 150, timeout_ms: 150 }),
    );
    expect(o.success, JSON.stringify(o.error)).toBe(true);
    expect(o.detail!.hops).toHaveLength(1);
    expect(o.detail!.hops[0]).toMatchObject({ sent: 2, loss_pct: 0 });
    // The time it reports still holds the stall: the process read the reply that late.
    expect(o.detail!.hops[0]!.best).toBeGreaterThanOrEqual(250);
  });

  it("still counts it when the process stalls again in the wait's grace (a machine with too few cores)", async () => {
    // Held again 40 ms as the first grace begins: that grace expires before a second turn reads the reply.
    const o = await withLoopHeld(
      150,
      300,
      () => mtr("127.0.0.1", { rounds: 2, max_hops: 1, interval_ms: 150, timeout_ms: 150 }),
      { ms: READ_GRACE_MS, holdMs: 40, times: 2 },
    );
    expect(o.success, JSON.stringify(o.error)).toBe(true);
    expect(o.detail!.hops[0]).toMatchObject({ sent: 2, loss_pct: 0 });
  });

  it("stops at the deadline with the rounds done, in-flight probes not counted", async () => {
    const signal = AbortSignal.timeout(250);
    const o = await mtr("127.0.0.1", { rounds: 50, interval_ms: 100 }, { ...allow, signal });
    expect(o.success).toBe(false);
    expect(o.error?.code).toBe("timeout");
    const d = o.detail!;
    expect(d.rounds).toBeGreaterThanOrEqual(1);
    expect(d.rounds).toBeLessThan(50);
    expect(d.hops[0]?.sent).toBe(d.hops[0]?.received);
  });
});

describe("mtr packets", () => {
  it("reads the ports and sequence number an ICMP time exceeded quotes from a TCP SYN", () => {
    const syn = buildTcpSyn(4, "192.0.2.1", "198.51.100.7", 40_000, 443, 0xdeadbeef);
    const quotedIp = Buffer.alloc(20);
    quotedIp[0] = 0x45;
    quotedIp[9] = 6;
    Buffer.from([198, 51, 100, 7]).copy(quotedIp, 16);
    const icmp = Buffer.concat([Buffer.from([11, 0, 0, 0, 0, 0, 0, 0]), quotedIp, syn.subarray(0, 8)]);
    const outer = Buffer.alloc(20);
    outer[0] = 0x45;
    expect(parseQuotedTransport(4, Buffer.concat([outer, icmp]))).toEqual({
      kind: "time_exceeded",
      code: 0,
      protocol: 6,
      destination: "198.51.100.7",
      srcPort: 40_000,
      dstPort: 443,
      tcpSeq: 0xdeadbeef,
    });
    expect(parseTcpSegment(6, syn)).toMatchObject({ srcPort: 40_000, dstPort: 443, syn: true, rst: false });
  });

  it("ignores ICMP that quotes neither UDP nor TCP, and short packets", () => {
    expect(parseQuotedTransport(4, Buffer.alloc(10))).toBeNull();
    expect(parseQuotedTransport(6, Buffer.from([129, 0, 0, 0, 0, 1, 0, 1]))).toBeNull();
  });
});
