import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PingParams } from "./probe-params.js";
import { type ChildRun, probesEntry, runChildNode } from "./testing/child-node.js";
import { type MtuLab, mtuLab } from "./testing/mtu-lab.js";
import type { ProbeOutcome } from "./types.js";

/**
 * Packet size, DF and path MTU discovery against a lab path whose second link has MTU 1280: the probe runs
 * in the client namespace (a child process), each case printing one JSON line.
 */
type Case = { name: string; params: Partial<PingParams> & { host: string } };

describe("ping size, DF and pmtu across a 1280-byte link (lab namespaces, root)", () => {
  let lab: MtuLab;
  let child: ChildRun;
  const out = new Map<string, ProbeOutcome<"ping">>();

  beforeAll(() => {
    lab = mtuLab("mtu");
    const cases: Case[] = [
      // The searches first, while the kernel knows no path MTU yet: they learn it from the router's answer.
      { name: "pmtu4", params: { host: lab.target4, pmtu: true } },
      { name: "pmtu6", params: { host: lab.target6, pmtu: true } },
      { name: "df-1500", params: { host: lab.target4, size: 1500, dont_fragment: true } },
      { name: "df-1280", params: { host: lab.target4, size: 1280, dont_fragment: true } },
      { name: "df-1281", params: { host: lab.target4, size: 1281, dont_fragment: true } },
      { name: "frag-1500", params: { host: lab.target4, size: 1500, dont_fragment: false } },
      { name: "pmtu4-max", params: { host: lab.target4, pmtu: true, size: 1000 } },
      { name: "v6-1500", params: { host: lab.target6, size: 1500, dont_fragment: true } },
    ];
    const source = [
      `import { pingProbe } from ${JSON.stringify(probesEntry)};`,
      `const cases = ${JSON.stringify(cases)};`,
      "for (const c of cases) {",
      "  const params = { count: 2, interval_ms: 100, timeout_ms: 1000, ...c.params };",
      "  const o = await pingProbe.run(params, { allowPrivate: true });",
      "  console.log(JSON.stringify({ name: c.name, o }));",
      "}",
    ].join("\n");
    child = runChildNode(source, { netns: lab.client });
    for (const line of child.lines as { name: string; o: ProbeOutcome<"ping"> }[]) out.set(line.name, line.o);
  });
  afterAll(() => lab?.remove());

  const outcome = (name: string) => {
    const o = out.get(name);
    if (!o) throw new Error(`no result for ${name}: ${child.stderr.slice(-2000)}`);
    return o;
  };

  it("a 1500-byte echo with DF fails: packet_too_big, the router's MTU named", () => {
    const o = outcome("df-1500");
    expect(o).toMatchObject({ success: false, error: { code: "packet_too_big" } });
    expect(o.detail).toMatchObject({ packet_size: 1500, packets_sent: 2, packets_received: 0 });
    expect(o.error?.message).toMatch(/1280|path MTU/);
  });

  it("a packet of exactly the link's MTU passes with DF, one byte more does not", () => {
    expect(outcome("df-1280")).toMatchObject({
      success: true,
      detail: { packet_size: 1280, packets_received: 2 },
    });
    expect(outcome("df-1281")).toMatchObject({ success: false, error: { code: "packet_too_big" } });
  });

  it("without DF the router fragments the 1500-byte echo and the reply comes back", () => {
    expect(outcome("frag-1500")).toMatchObject({
      success: true,
      detail: { packet_size: 1500, packets_received: 2 },
    });
  });

  it("pmtu finds the link's 1280 over IPv4 and IPv6; `size` caps the search", () => {
    expect(outcome("pmtu4").detail?.pmtu).toBe(lab.mtu);
    // Plain echoes are unchanged by pmtu: default size, no packet_size field.
    expect(outcome("pmtu4")).toMatchObject({ success: true, detail: { packets_received: 2 } });
    expect(outcome("pmtu4").detail).not.toHaveProperty("packet_size");
    expect(outcome("pmtu4-max").detail?.pmtu).toBe(1000);
    expect(outcome("pmtu6").detail?.pmtu).toBe(lab.mtu);
  });

  it("IPv6 never fragments at a router: 1500 bytes fail with packet too big", () => {
    const o = outcome("v6-1500");
    expect(o).toMatchObject({ success: false, error: { code: "packet_too_big" } });
    expect(child.status, child.stderr.slice(-2000)).toBe(0);
  });
});

describe("pmtu behind a router that sends no ICMP errors (lab namespaces, root)", () => {
  let lab: MtuLab;
  let child: ChildRun;
  beforeAll(() => {
    lab = mtuLab("mtus", { silentRouter: true });
    const source = [
      `import { pingProbe } from ${JSON.stringify(probesEntry)};`,
      "const base = { count: 1, interval_ms: 100, timeout_ms: 300, pmtu: true };",
      `for (const host of [${JSON.stringify(lab.target4)}, ${JSON.stringify(lab.target6)}]) {`,
      "  const started = Date.now();",
      "  const o = await pingProbe.run({ ...base, host }, { allowPrivate: true });",
      "  console.log(JSON.stringify({ host, o, ms: Date.now() - started }));",
      "}",
    ].join("\n");
    child = runChildNode(source, { netns: lab.client });
  });
  afterAll(() => lab?.remove());

  it("the binary search still finds 1280, each silent size costing one timeout, within its bound", () => {
    const lines = child.lines as { host: string; o: ProbeOutcome<"ping">; ms: number }[];
    expect(lines, child.stderr.slice(-2000)).toHaveLength(2);
    for (const { host, o, ms } of lines) {
      expect(o.detail?.pmtu, host).toBe(lab.mtu);
      // At most 12 echoes of 300 ms each, plus the plain echo: the search stays within its budget.
      expect(ms, host).toBeLessThan(13 * 300 + 5000);
    }
  });
});
