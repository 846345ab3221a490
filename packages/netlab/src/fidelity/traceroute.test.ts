import type { TracerouteResult } from "@vantage/probes";
import { describe, expect, it } from "vitest";
import { expectedHops } from "../describe.js";
import { hopAddresses } from "../reference/traceroute.js";
import { labAddresses as at } from "../topology.js";
import { useLab } from "./lab-fixture.js";
import { referenceTraceroute } from "./reference-runs.js";

/**
 * traceroute vs `traceroute -n` (UDP) and `traceroute -n -I` (ICMP) on the same path: the same hop
 * address list, `*` (null) exactly where the reference has `*`, IPv4 and IPv6.
 */
const fx = useLab();
const ourHops = (d: TracerouteResult | null): (string | null)[] => (d?.hops ?? []).map((h) => h.ip);

describe("traceroute fidelity", () => {
  const cases: [string, string, 4 | 6][] = [
    ["c1", at.web4, 4],
    ["c2", at.web4, 4],
    ["c3", at.web4, 4],
    ["c2", at.web6, 6],
    ["c1", at.web6, 6],
  ];
  for (const [client, host, family] of cases) {
    it(`${client} → ${host}: same hops as traceroute -n and -n -I`, async () => {
      const runner = await fx.runner(client);
      const o = { maxHops: 8, waitMs: 1000, queries: 3 };
      const udp = hopAddresses(await referenceTraceroute(fx.lab, client, host, { ...o, icmp: false }));
      const icmp = hopAddresses(await referenceTraceroute(fx.lab, client, host, { ...o, icmp: true }));
      const ours = await runner.run({
        type: "traceroute",
        params: { host, max_hops: 8, timeout_ms: 1000, queries_per_hop: 3 },
      });
      const d = ours.detail as TracerouteResult | null;
      expect(udp).toEqual(expectedHops(client, host, family));
      expect(icmp).toEqual(udp);
      expect(ourHops(d)).toEqual(udp);
      expect(d?.reached).toBe(true);
      expect(ours.success).toBe(true);
      expect(d?.hops.every((h) => h.rtts.length === 3)).toBe(true);
    });
  }

  for (const [host, family] of [
    [at.noIcmp4, 4],
    [at.noIcmp6, 6],
  ] as const) {
    it(`ICMP-silent host ${host}: \`*\` where the reference has \`*\``, async () => {
      const runner = await fx.runner("c1");
      const o = { maxHops: 5, waitMs: 500, queries: 2 };
      const ref = hopAddresses(await referenceTraceroute(fx.lab, "c1", host, { ...o, icmp: true }));
      const ours = await runner.run({
        type: "traceroute",
        params: { host, max_hops: 5, timeout_ms: 500, queries_per_hop: 2 },
      });
      const d = ours.detail as TracerouteResult | null;
      const routers = expectedHops("c1", host, family).slice(0, -1);
      expect(ref).toEqual([...routers, null, null, null]);
      expect(ourHops(d)).toEqual(ref);
      expect(d?.reached).toBe(false);
    });
  }
});
