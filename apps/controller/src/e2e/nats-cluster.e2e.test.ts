import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Cluster, type Controller, startCluster } from "./cluster.js";
import { type NatsCluster, startNatsCluster } from "./nats-cluster.js";
import { type ProbeAnswer, probeTcp, startTargets, type Targets } from "./targets.js";

/**
 * Three nats-servers in one cluster, configured from deploy/nats/cluster/nats-server.conf (nkey users and
 * subject permissions on every server, authenticated routes), with each client on a server of its own:
 * agent one on server 1, agent two on server 2, the controller on server 3, each given all three URLs with
 * its own first (`NATS_NO_RANDOMIZE`). Jobs and replies cross the routes. Server 1 is then killed: its
 * agent moves to another server by itself and probes go on from both agents.
 */
const agents = [
  { id: "nc-one", country: "DE", region: "eu-central", provider: "hetzner" },
  { id: "nc-two", country: "US", region: "us-east", provider: "vultr" },
];
const ids = agents.map((a) => a.id);
const preferred: Record<string, number> = { "nc-one": 0, "nc-two": 1 };

describe("NATS cluster of three servers (real processes)", () => {
  let nats: NatsCluster;
  let cluster: Cluster;
  let targets: Targets;
  let controller: Controller;
  beforeAll(async () => {
    [cluster, targets] = await Promise.all([
      startCluster(agents, {
        nats: async (o) => {
          nats = await startNatsCluster(o);
          return nats;
        },
        agentEnv: (id) => ({ NATS_URL: nats.urlsFrom(preferred[id]!), NATS_NO_RANDOMIZE: "true" }),
      }),
      startTargets(),
    ]);
    controller = await cluster.startController({
      VANTAGE_API_FORM: "b",
      NATS_URL: nats.urlsFrom(2),
      NATS_NO_RANDOMIZE: "true",
    });
    await cluster.waitForNodes(controller.url, ids);
  }, 120_000);
  afterAll(async () => {
    await controller?.stop();
    await targets?.close();
    await cluster?.stop();
  });

  const probe = () => probeTcp(controller.url, targets, ids);
  const allUp = (a: ProbeAnswer) =>
    a.status === 200 && a.results.length === ids.length && a.results.every((r) => r.success);
  const serverOf = async (client: string) => {
    const names = await Promise.all(nats.servers.map((s) => s.clientNames().catch(() => [] as string[])));
    return names.findIndex((n) => n.includes(client));
  };

  it("each client is on its preferred server, and probes cross the routes to both agents", async () => {
    expect(await serverOf("vantage-agent-nc-one")).toBe(0);
    expect(await serverOf("vantage-agent-nc-two")).toBe(1);
    expect(await serverOf("vantage-controller")).toBe(2);
    const answer = await probe();
    expect(answer.status).toBe(200);
    expect(answer.results.map((r) => [r.node_id, r.success]).sort()).toEqual([
      ["nc-one", true],
      ["nc-two", true],
    ]);
  });

  it("server 1 killed: its agent moves to another server within 10 s and both agents keep answering", async () => {
    await nats.servers[0]!.kill("SIGKILL");
    const killed = performance.now();
    let last: ProbeAnswer | undefined;
    while (performance.now() - killed < 10_000) {
      last = await probe();
      // The controller's own server is up: every answer is a 200, nc-one's entry failing at most with a
      // node-level error (offline: no responders) until its agent is back.
      expect(last.status).toBe(200);
      for (const r of last.results) if (!r.success) expect(r.node_id, r.error?.code).toBe("nc-one");
      if (allUp(last)) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(last && allUp(last), `nc-one not back within 10 s: ${JSON.stringify(last)}`).toBe(true);

    expect([1, 2]).toContain(await serverOf("vantage-agent-nc-one"));
    expect(await serverOf("vantage-agent-nc-two")).toBe(1);
    await cluster.waitForNodes(controller.url, ids, 5_000);
    for (let i = 0; i < 5; i++) expect(allUp(await probe())).toBe(true);
    for (const child of cluster.agents.values()) expect(child.exitCode).toBeNull();
  }, 30_000);
});
