import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Cluster, type Controller, startCluster } from "./cluster.js";
import { type NatsCluster, startNatsCluster } from "./nats-cluster.js";
import { type ProbeAnswer, probeTcp, startTargets, type Targets } from "./targets.js";

/**
 * Three nats-servers in one cluster, configured from deploy/nats/cluster/nats-server.conf (nkey users and
 * subject permissions on every server, authenticated routes), with each client on a server of its own:
 * agent one on server 1, agent two on server 2, the controller on server 3, each given all three URLs with
 * its own first (`NATS_NO_RANDOMIZE`). Jobs and replies cross the routes. Server 1 is then killed: its
 * agent moves to another server by itself and probes go on from both agents. Then the controller's own
 * server is killed under a probe in flight: its entries are answered `transport_lost`, not at the deadline.
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

  it("the controller's server killed under a probe in flight: transport_lost within 1 s of its reconnect", async () => {
    // A target that holds every request 4 s: the probe (timeout 5 s, deadline 6 s) is in flight on both
    // agents when the server dies, and no real answer could come before 4 s.
    let arrived = 0;
    const slow = createServer((_req, res) => {
      arrived++;
      setTimeout(() => res.end("late\n"), 4000);
    });
    await new Promise<void>((r) => slow.listen(0, "127.0.0.1", r));
    try {
      const url = `http://127.0.0.1:${(slow.address() as AddressInfo).port}/`;
      const answer = fetch(`${controller.url}/v1/probe/http`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ url, timeout: 5, nodes: ids }),
      }).then(async (res) => ({
        status: res.status,
        body: (await res.json()) as { data: ProbeAnswer & { results: { error?: { message: string } }[] } },
        at: performance.now(),
      }));
      for (let i = 0; i < 500 && arrived < ids.length; i++) await new Promise((r) => setTimeout(r, 10));
      expect(arrived, "both agents are running the probe").toBe(ids.length);

      await nats.servers[2]!.kill("SIGKILL"); // the controller's server; server 1 is down since the test above
      const killed = performance.now();
      // Its reconnect as server 2 sees it (noticed up to a poll late: the bound below is the looser for it).
      let reconnected: number | undefined;
      while (reconnected === undefined && performance.now() - killed < 10_000) {
        if ((await nats.servers[1]!.clientNames()).some((n) => n.includes("vantage-controller")))
          reconnected = performance.now();
        else await new Promise((r) => setTimeout(r, 20));
      }
      const { status, body, at } = await answer;
      expect(reconnected, "the controller reconnected to server 2").toBeDefined();
      expect(status).toBe(200);
      expect(body.data.results.map((r) => [r.node_id, r.success, r.error?.code]).sort()).toEqual([
        ["nc-one", false, "transport_lost"],
        ["nc-two", false, "transport_lost"],
      ]);
      expect(body.data.results[0]?.error?.message).toContain("lost its connection to NATS");
      expect(at - (reconnected ?? 0)).toBeLessThanOrEqual(1000);
      expect(at - killed, "long before the 4 s target or the 6 s deadline").toBeLessThan(3000);

      // Probes go on from both agents once everything is back on server 2.
      let last: ProbeAnswer | undefined;
      while (performance.now() - killed < 15_000) {
        last = await probe();
        if (allUp(last)) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(last && allUp(last), `not back within 15 s: ${JSON.stringify(last)}`).toBe(true);
    } finally {
      slow.closeAllConnections();
      await new Promise((r) => slow.close(r));
    }
  }, 40_000);
});
