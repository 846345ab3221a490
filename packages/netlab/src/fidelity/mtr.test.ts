import type { MtrResult } from "@vantage/probes";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectedHops } from "../describe.js";
import { must, tool } from "../shell.js";
import { labAddresses as at } from "../topology.js";
import { useLab } from "./lab-fixture.js";
import { referenceMtr } from "./reference-runs.js";

/**
 * mtr vs Debian's `mtr` (mtr-tiny 0.95) over 50 rounds from c2 (c2 → r3 → r1 → r2 → t1), with loss on
 * the middle router r1 and at the target:
 * - r1 drops every 4th ICMP time exceeded it would send (`numgen inc mod 4`): 25 % loss at hop 2 only, as
 *   a router that rate-limits its ICMP shows;
 * - t1 drops every 10th packet it sends back to c2: 10 % loss at the last hop.
 * Counters (`numgen inc`) rather than `numgen random`: the two runs see the same loss, so the comparison
 * (hop lists identical, per-hop loss within ±10 points) measures the probe, not the dice.
 */
// Destroyed after this file: its worker runs the serial project's end-to-end files next (vitest.config.ts).
const fx = useLab({ services: true, lossPercent: 0 }, { keep: false });
const ROUNDS = 50;

async function nft(node: string, rules: string): Promise<void> {
  await must(tool("ip"), ["netns", "exec", fx.lab.ns(node), tool("nft"), "-f", "-"], rules);
}

describe("mtr fidelity (50 rounds, loss on a middle router)", () => {
  beforeAll(async () => {
    await nft(
      "r1",
      `table inet vantage_mtr {
  chain out {
    type filter hook output priority 0; policy accept;
    icmp type time-exceeded numgen inc mod 4 == 0 drop
    icmpv6 type time-exceeded numgen inc mod 4 == 0 drop
  }
}`,
    );
    await nft(
      "t1",
      `table inet vantage_mtr {
  chain out {
    type filter hook output priority 0; policy accept;
    ip daddr 192.0.2.5 numgen inc mod 10 == 0 drop
    ip6 daddr 2001:db8:a2::1 numgen inc mod 10 == 0 drop
  }
}`,
    );
  });
  afterAll(async () => {
    for (const node of ["r1", "t1"])
      await fx.lab.exec(node, tool("nft"), ["delete", "table", "inet", "vantage_mtr"]).catch(() => {});
  });

  const cases: [string, "icmp" | "udp" | "tcp", 4 | 6, number | undefined][] = [
    [at.web4, "icmp", 4, undefined],
    [at.web6, "icmp", 6, undefined],
    [at.web4, "udp", 4, undefined],
    [at.web4, "tcp", 4, at.tcpOpenPort],
  ];
  for (const [host, mode, family, port] of cases) {
    it(`c2 → ${host} over ${mode}: same hops, per-hop loss within 10 points`, async () => {
      const runner = await fx.runner("c2");
      const o = { mode, rounds: ROUNDS, intervalMs: 100, maxHops: 8, ...(port ? { port } : {}) };
      const ref = await referenceMtr(fx.lab, "c2", host, o);
      const ours = await runner.run({
        type: "mtr",
        params: {
          host,
          mode,
          rounds: ROUNDS,
          interval_ms: 100,
          timeout_ms: 100,
          max_hops: 8,
          ...(port ? { port } : {}),
        },
      });
      const d = ours.detail as MtrResult | null;
      expect(ours.success, JSON.stringify(ours.error)).toBe(true);
      const hops = expectedHops("c2", host, family);
      expect(ref.map((h) => h.host)).toEqual(hops);
      expect(d?.hops.map((h) => h.ip)).toEqual(hops);
      expect(d?.reached).toBe(true);
      expect(d?.rounds).toBe(ROUNDS);
      for (const [i, h] of (d?.hops ?? []).entries()) {
        const r = ref[i]!;
        expect(h.sent, `hop ${i + 1} sent`).toBe(ROUNDS);
        expect(
          Math.abs(h.loss_pct - r.lossPct),
          `hop ${i + 1}: ours ${h.loss_pct} %, mtr ${r.lossPct} %`,
        ).toBeLessThanOrEqual(10);
      }
      // The loss is where it was put: the middle router and the target, not the hops around them.
      expect(ref[1]!.lossPct).toBeGreaterThan(15);
      expect(d?.hops[1]?.loss_pct).toBeGreaterThan(15);
      expect(d?.hops[0]?.loss_pct).toBe(0);
      expect(d?.hops[2]?.loss_pct).toBe(0);
      expect(d?.hops.at(-1)?.loss_pct).toBeGreaterThan(4);
    });
  }
});
