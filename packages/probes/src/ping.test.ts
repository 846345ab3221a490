import { spawnSync } from "node:child_process";
import { getEventListeners } from "node:events";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { READ_GRACE_MS } from "./clock.js";
import { pingProbe } from "./ping.js";
import { lossPercent, rttStats } from "./ping-stats.js";
import type { PingParams } from "./probe-params.js";
import { withLoopHeld } from "./testing/held-loop.js";
import { nftTable } from "./testing/nft-rules.js";
import type { ProbeContext } from "./types.js";

const allow = { allowPrivate: true };
const ping = (host: string, extra: Partial<PingParams> = {}, ctx: ProbeContext = allow) =>
  pingProbe.run({ host, count: 3, timeout_ms: 1000, interval_ms: 20, ...extra }, ctx);

describe("ping probe (raw ICMP, root)", () => {
  it.each([
    ["127.0.0.1", 64],
    ["::1", null],
  ])("pings %s: every echo answered, sub-millisecond RTTs, stats from the replies", async (host, ttl) => {
    const o = await ping(host, { count: 4 });
    expect(o.success, JSON.stringify(o.error)).toBe(true);
    const d = o.detail!;
    expect(d).toMatchObject({ resolved_ip: host, packets_sent: 4, packets_received: 4, packet_loss: 0 });
    expect(d.replies.map((r) => r.seq)).toEqual([1, 2, 3, 4]);
    for (const r of d.replies) {
      expect(r.ttl).toBe(ttl); // IPv4 TTL from the IP header; IPv6 raw sockets do not expose the hop limit
      expect(r.rtt_ms).toBeGreaterThan(0);
      expect(r.rtt_ms).toBeLessThan(500);
    }
    const rtts = d.replies.map((r) => r.rtt_ms ?? Number.NaN);
    expect(d.rtt).toEqual(rttStats(rtts));
    expect(d.rtt?.min).toBeLessThanOrEqual(d.rtt?.avg ?? 0);
    expect(d.rtt?.avg).toBeLessThanOrEqual(d.rtt?.max ?? 0);
    expect(o.latency_ms).toBe(d.rtt?.avg);
    // Loopback answers in microseconds: a Date-based (1 ms) clock would report whole milliseconds.
    expect(rtts.some((r) => !Number.isInteger(r))).toBe(true);
  });

  it("keeps concurrent pings apart (one shared socket, one identifier each)", async () => {
    const runs = await Promise.all([
      ping("127.0.0.1", { count: 5, interval_ms: 10 }),
      ping("127.0.0.1", { count: 5, interval_ms: 10 }),
      ping("::1", { count: 5, interval_ms: 10 }),
      ping("::1", { count: 5, interval_ms: 10 }),
    ]);
    for (const o of runs) {
      expect(o.detail).toMatchObject({ packets_sent: 5, packets_received: 5 });
      expect(o.detail?.replies.map((r) => r.seq)).toEqual([1, 2, 3, 4, 5]);
    }
  });

  it("leaves no listener on the caller's signal after many echoes", async () => {
    const controller = new AbortController();
    const o = await ping(
      "127.0.0.1",
      { count: 12, interval_ms: 10 },
      { ...allow, signal: controller.signal },
    );
    expect(o.detail).toMatchObject({ packets_sent: 12, packets_received: 12 });
    // One listener per echo and per pause between echoes used to stay: 23 here, and a warning at 11.
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);
  });

  it("counts echoes answered in time but read late: a stalled process is not packet loss", async () => {
    // Held 300 ms after each echo's 150 ms wait began: the replies wait in the socket as the timers expire.
    const o = await withLoopHeld(150, 300, () => ping("127.0.0.1", { count: 2, timeout_ms: 150 }));
    expect(o.success, JSON.stringify(o.error)).toBe(true);
    expect(o.detail).toMatchObject({ packets_sent: 2, packets_received: 2, packet_loss: 0 });
  });

  it("still counts them when the process stalls again in the wait's grace (a machine with too few cores)", async () => {
    const o = await withLoopHeld(150, 300, () => ping("127.0.0.1", { count: 2, timeout_ms: 150 }), {
      ms: READ_GRACE_MS,
      holdMs: 40,
      times: 2,
    });
    expect(o.detail).toMatchObject({ packets_sent: 2, packets_received: 2, packet_loss: 0 });
  });

  it("refuses loopback unless private targets are allowed", async () => {
    for (const host of ["127.0.0.1", "::1", "localhost"]) {
      const o = await ping(host, {}, { allowPrivate: false });
      expect(o, host).toMatchObject({ success: false, error: { code: "target_not_allowed" } });
    }
  });

  // Dropped on input: an output drop would fail sendto with EPERM instead of losing the packet.
  describe("when echoes are dropped (nftables on 127.0.0.2)", () => {
    let rules: { remove: () => void };
    beforeAll(() => {
      rules = nftTable(["in ip daddr 127.0.0.2 icmp type echo-request drop"]);
    });
    afterAll(() => rules.remove());

    it("reports every packet lost: timeout, 100 % loss, no RTT stats", async () => {
      const o = await ping("127.0.0.2", { count: 2, timeout_ms: 200 });
      expect(o).toMatchObject({ success: false, latency_ms: null, error: { code: "timeout" } });
      expect(o.detail).toMatchObject({ packets_sent: 2, packets_received: 0, packet_loss: 100, rtt: null });
      expect(o.detail?.replies).toEqual([
        { seq: 1, rtt_ms: null, ttl: null },
        { seq: 2, rtt_ms: null, ttl: null },
      ]);
    });
  });

  it("reports icmp_unavailable without CAP_NET_RAW", () => {
    const dir = mkdtempSync(join(tmpdir(), "vantage-ping-"));
    const script = join(dir, "ping-no-cap.mts");
    const pingModule = fileURLToPath(new URL("./ping.ts", import.meta.url));
    writeFileSync(
      script,
      `import { pingProbe } from ${JSON.stringify(pingModule)};\n` +
        `const o = await pingProbe.run({ host: "127.0.0.1", count: 1, timeout_ms: 500, interval_ms: 100 }, { allowPrivate: true });\n` +
        "console.log(JSON.stringify(o));\n",
    );
    const root = fileURLToPath(new URL("../../..", import.meta.url));
    const r = spawnSync("capsh", ["--drop=cap_net_raw", "--", "-c", `node --import tsx ${script}`], {
      cwd: root,
      encoding: "utf8",
      timeout: 30_000,
    });
    rmSync(dir, { recursive: true, force: true });
    if (r.error)
      throw new Error(`this test needs capsh (libcap2-bin) to drop CAP_NET_RAW: ${r.error.message}`);
    const o = JSON.parse(r.stdout.trim().split("\n").at(-1) ?? "null");
    expect(o).toMatchObject({ success: false, error: { code: "icmp_unavailable" } });
  });
});

describe("ping statistics", () => {
  it("computes min/avg/max/mdev as iputils does (population deviation)", () => {
    expect(rttStats([1, 2, 3, 4])).toEqual({ min: 1, avg: 2.5, max: 4, mdev: 1.118 });
    expect(rttStats([0.05, 0.05])).toEqual({ min: 0.05, avg: 0.05, max: 0.05, mdev: 0 });
    expect(rttStats([])).toBeNull();
  });

  it("computes loss as a percentage of packets sent", () => {
    expect(lossPercent(3, 2)).toBe(33.333);
    expect(lossPercent(4, 4)).toBe(0);
    expect(lossPercent(0, 0)).toBe(0);
  });
});
