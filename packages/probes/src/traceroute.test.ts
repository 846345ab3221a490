import { getEventListeners } from "node:events";
import raw from "raw-socket";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { READ_GRACE_MS } from "./clock.js";
import { buildEcho, parseIcmp } from "./icmp-packet.js";
import type { TracerouteParams } from "./probe-params.js";
import { withLoopHeld } from "./testing/held-loop.js";
import { nftTable } from "./testing/nft-rules.js";
import { tracerouteProbe } from "./traceroute.js";
import type { ProbeContext } from "./types.js";

const allow = { allowPrivate: true };
const trace = (host: string, extra: Partial<TracerouteParams> = {}, ctx: ProbeContext = allow) =>
  tracerouteProbe.run({ host, max_hops: 5, timeout_ms: 500, queries_per_hop: 3, ...extra }, ctx);

describe("traceroute probe (raw ICMP, root)", () => {
  it.each(["127.0.0.1", "::1"])("reaches %s in one hop, three answered probes", async (host) => {
    const o = await trace(host);
    expect(o.success, JSON.stringify(o.error)).toBe(true);
    const d = o.detail!;
    expect(d).toMatchObject({ resolved_ip: host, reached: true });
    expect(d.hops).toHaveLength(1);
    expect(d.hops[0]).toMatchObject({ hop: 1, ip: host, hostname: null, probe_ips: [host, host, host] });
    expect(d.hops[0]?.rtts).toHaveLength(3);
    for (const rtt of d.hops[0]?.rtts ?? []) expect(rtt).toBeGreaterThan(0);
    expect(o.latency_ms).toBe(d.hops[0]?.rtts[0]);
  });

  it("honours queries_per_hop", async () => {
    const o = await trace("127.0.0.1", { queries_per_hop: 1 });
    expect(o.detail?.hops).toEqual([
      { hop: 1, ip: "127.0.0.1", hostname: null, rtts: [expect.any(Number)], probe_ips: ["127.0.0.1"] },
    ]);
  });

  it("counts replies that came in time but were read late: a stalled process is no `*` on the path", async () => {
    // Held 300 ms after each probe's 150 ms wait began: the replies wait in the socket as the timers expire.
    const o = await withLoopHeld(150, 300, () =>
      trace("127.0.0.1", { max_hops: 1, timeout_ms: 150, queries_per_hop: 2 }),
    );
    expect(o.success, JSON.stringify(o.error)).toBe(true);
    expect(o.detail?.hops).toEqual([
      {
        hop: 1,
        ip: "127.0.0.1",
        hostname: null,
        rtts: [expect.any(Number), expect.any(Number)],
        probe_ips: ["127.0.0.1", "127.0.0.1"],
      },
    ]);
  });

  it("still counts them when the process stalls again in the wait's grace (a machine with too few cores)", async () => {
    const o = await withLoopHeld(
      150,
      300,
      () => trace("127.0.0.1", { max_hops: 1, timeout_ms: 150, queries_per_hop: 2 }),
      { ms: READ_GRACE_MS, holdMs: 40, times: 2 },
    );
    expect(o.success, JSON.stringify(o.error)).toBe(true);
    expect(o.detail?.hops[0]?.rtts).toEqual([expect.any(Number), expect.any(Number)]);
  });

  it("refuses loopback unless private targets are allowed", async () => {
    const o = await trace("localhost", {}, { allowPrivate: false });
    expect(o).toMatchObject({ success: false, error: { code: "target_not_allowed" } });
  });

  describe("towards a silent target (echoes dropped on 127.0.0.2)", () => {
    let rules: { remove: () => void };
    beforeAll(() => {
      rules = nftTable(["in ip daddr 127.0.0.2 icmp type echo-request drop"]);
    });
    afterAll(() => rules.remove());

    it("reports `*` hops up to max_hops and not reached", async () => {
      const o = await trace("127.0.0.2", { max_hops: 3, timeout_ms: 200, queries_per_hop: 2 });
      expect(o.success).toBe(true);
      expect(o.latency_ms).toBeNull();
      expect(o.detail).toEqual({
        resolved_ip: "127.0.0.2",
        reached: false,
        hops: [1, 2, 3].map((hop) => ({
          hop,
          ip: null,
          hostname: null,
          rtts: [null, null],
          probe_ips: [null, null],
        })),
      });
    });

    it("holds one abort listener on the job's signal for a whole window of probes, and ends them all on abort", async () => {
      const ac = new AbortController();
      const running = trace(
        "127.0.0.2",
        { max_hops: 10, timeout_ms: 5000, queries_per_hop: 3 },
        { ...allow, signal: ac.signal },
      );
      await new Promise((r) => setTimeout(r, 100));
      // 15 probes are out (5 hops × 3); one listener stands for all of them.
      expect(getEventListeners(ac.signal, "abort")).toHaveLength(1);
      const started = performance.now();
      ac.abort();
      const o = await running;
      expect(performance.now() - started).toBeLessThan(1000);
      expect(o).toMatchObject({ success: false, error: { code: "timeout" } });
      expect(getEventListeners(ac.signal, "abort")).toHaveLength(0);
    });
  });
});

/** A router's ICMP error as a raw socket delivers it, quoting our echo (built by the probe's own encoder). */
function timeExceeded4(router: number[], quotedDst: number[], id: number, seq: number): Buffer {
  const echo = buildEcho(4, id, seq).subarray(0, 8);
  const inner = Buffer.alloc(20);
  inner[0] = 0x45;
  inner[8] = 1; // TTL left when it expired
  inner[9] = 1; // protocol ICMP
  Buffer.from(quotedDst).copy(inner, 16);
  const icmp = Buffer.concat([Buffer.from([11, 0, 0, 0, 0, 0, 0, 0]), inner, echo]);
  raw.writeChecksum(icmp, 2, raw.createChecksum(icmp));
  const outer = Buffer.alloc(20);
  outer[0] = 0x45;
  outer[8] = 63;
  outer[9] = 1;
  Buffer.from(router).copy(outer, 12);
  return Buffer.concat([outer, icmp]);
}

function timeExceeded6(quotedDst: Buffer, id: number, seq: number): Buffer {
  const inner = Buffer.alloc(40);
  inner[0] = 0x60;
  inner[6] = 58; // next header ICMPv6
  inner[7] = 1;
  quotedDst.copy(inner, 24);
  return Buffer.concat([Buffer.from([3, 0, 0, 0, 0, 0, 0, 0]), inner, buildEcho(6, id, seq)]);
}

describe("ICMP parsing (what traceroute matches on)", () => {
  it("reads an IPv4 time-exceeded: quoted id, sequence and destination; outer TTL", () => {
    const m = parseIcmp(4, timeExceeded4([192, 0, 2, 1], [198, 51, 100, 7], 0x1234, 42));
    expect(m).toEqual({
      kind: "time_exceeded",
      code: 0,
      id: 0x1234,
      seq: 42,
      ttl: 63,
      quotedDestination: "198.51.100.7",
    });
  });

  it("reads an IPv6 time-exceeded quoting our echo", () => {
    const dst = Buffer.from("20010db8000000000000000000000007", "hex");
    const m = parseIcmp(6, timeExceeded6(dst, 7, 9));
    expect(m).toMatchObject({ kind: "time_exceeded", id: 7, seq: 9, ttl: null });
    expect(m?.quotedDestination).toBe("2001:db8:0:0:0:0:0:7");
  });

  it("reads echo replies and ignores our own looped-back requests", () => {
    const reply = buildEcho(6, 5, 6);
    reply[0] = 129;
    expect(parseIcmp(6, reply)).toMatchObject({ kind: "echo_reply", id: 5, seq: 6 });
    expect(parseIcmp(6, buildEcho(6, 5, 6))).toBeNull();
  });

  it("ignores errors that quote something other than an ICMP echo", () => {
    const packet = timeExceeded4([192, 0, 2, 1], [198, 51, 100, 7], 1, 1);
    packet[20 + 8 + 9] = 17; // quoted protocol UDP: not one of our probes
    expect(parseIcmp(4, packet)).toBeNull();
    expect(parseIcmp(4, Buffer.alloc(10))).toBeNull();
  });
});
