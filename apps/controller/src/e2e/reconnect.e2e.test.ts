import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Cluster, type Controller, startCluster } from "./cluster.js";
import { type ProbeAnswer, probeTcp, startTargets, type Targets } from "./targets.js";

/**
 * The controller and the agents ride out a nats-server restart by themselves: nothing is restarted but
 * the server, and probes work again once both sides have reconnected.
 */
const agents = [
  { id: "rc-ams", country: "NL", region: "eu-west", provider: "hetzner" },
  { id: "rc-tyo", country: "JP", region: "ap-northeast", provider: "vultr" },
];
const ids = agents.map((a) => a.id);

describe("NATS server restart (real processes)", () => {
  let cluster: Cluster;
  let targets: Targets;
  let controller: Controller;
  beforeAll(async () => {
    [cluster, targets] = await Promise.all([startCluster(agents), startTargets()]);
    controller = await cluster.startController({ VANTAGE_API_FORM: "b" });
    await cluster.waitForNodes(controller.url, ids);
  }, 120_000);
  afterAll(async () => {
    await controller?.stop();
    await targets?.close();
    await cluster?.stop();
  });

  const probe = () => probeTcp(controller.url, targets, ids);
  const allUp = (a: ProbeAnswer) => a.status === 200 && a.results.every((r) => r.success);

  it("probes fail cleanly while the server is down and work again after it is back", async () => {
    expect(allUp(await probe())).toBe(true);

    await cluster.nats.restart();
    const started = performance.now();
    const seen: string[] = [];
    let last: ProbeAnswer | undefined;
    while (performance.now() - started < 30_000) {
      last = await probe();
      // While reconnecting, an answer is still an answer: 200 with node-level errors, never a hang or a 500.
      expect([200, 503]).toContain(last.status);
      for (const r of last.results) if (r.error) seen.push(r.error.code);
      if (allUp(last)) break;
      await new Promise((r) => setTimeout(r, 250));
    }
    expect(last && allUp(last), `still failing after 30 s: ${JSON.stringify(last)}`).toBe(true);
    // Node-level codes only; a probe in flight when the controller's connection dropped is `transport_lost`.
    for (const code of seen) expect(code).toMatch(/^(node_\w+|transport_lost)$/);
    for (const child of cluster.agents.values()) expect(child.exitCode).toBeNull();
  }, 60_000);
});
