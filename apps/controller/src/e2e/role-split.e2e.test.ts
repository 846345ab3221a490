import { type PostgresCluster, startPostgresCluster } from "@vantage/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Cluster, type Controller, startCluster } from "./cluster.js";
import { type Call, call } from "./http-call.js";
import { startNatsCluster } from "./nats-cluster.js";
import { startTargets, type Targets } from "./targets.js";

/**
 * Controllers split by role as docs/operations.md suggests, with real processes: `api`-only controllers
 * (Form B and Form A) and one `scheduler,notifier,presence` controller, on a PostgreSQL cluster of their
 * own, a NATS cluster of three servers (deploy/nats/cluster) and three agents. The api-only controllers know the nodes from the heartbeats
 * themselves, so while PostgreSQL is away, and the moment it is back, Form B probes against them answer
 * 200 from every live node (issue #27 item 1: before, every one answered 503 during the outage, and every
 * node looked offline for about 1.3 s after it).
 */
const agents = [
  { id: "rs-fra", country: "DE", region: "eu-central", provider: "hetzner" },
  { id: "rs-nyc", country: "US", region: "us-east", provider: "digitalocean" },
  { id: "rs-sgp", country: "SG", region: "ap-southeast", provider: "vultr" },
];
const ids = agents.map((a) => a.id);
const outageSeconds = 30;

describe("controllers split by role (real processes)", () => {
  let pg: PostgresCluster;
  let cluster: Cluster;
  let targets: Targets;
  let backend: Controller;
  let apiB: Controller;
  let apiA: Controller;

  beforeAll(async () => {
    [pg, targets] = await Promise.all([startPostgresCluster(), startTargets()]);
    cluster = await startCluster(agents, { databaseUrl: pg.url, nats: startNatsCluster });
    // Side by side: migrations are safe from several controllers at once.
    [backend, apiB, apiA] = await Promise.all([
      cluster.startController({ VANTAGE_ROLES: "scheduler,notifier,presence" }),
      cluster.startController({ VANTAGE_ROLES: "api", VANTAGE_API_FORM: "b" }),
      cluster.startController({ VANTAGE_ROLES: "api", VANTAGE_API_FORM: "a" }),
    ]);
    await Promise.all([cluster.waitForNodes(apiB.url, ids), cluster.waitForNodes(apiA.url, ids)]);
  }, 180_000);
  afterAll(async () => {
    await apiA?.stop();
    await apiB?.stop();
    await backend?.stop();
    await targets?.close();
    await cluster?.stop();
    await pg?.destroy();
  });

  it(`PostgreSQL stopped ${outageSeconds} s: api-only Form B answers 200 from every node throughout; Form A tasks end done`, async () => {
    const probes: Call[] = [];
    const lists: Call[] = [];
    let done = false;
    const traffic = (async () => {
      let n = 0;
      while (!done) {
        const [probe, list] = await Promise.all([
          call(apiB, "POST", "/v1/probe/tcp", { host: "127.0.0.1", port: targets.tcpPort, nodes: ids }),
          n % 4 === 0 ? call(apiB, "GET", "/v1/nodes") : undefined,
        ]);
        probes.push(probe);
        if (list) lists.push(list);
        n++;
        await new Promise((r) => setTimeout(r, 100));
      }
    })();

    // Form A tasks created before the stop whose nodes answer during the outage.
    const created = await Promise.all(
      [0, 1, 2].map(() =>
        call(apiA, "POST", "/v1/probe/http", {
          target: `${targets.httpUrl}/slow?ms=3000`,
          node_ids: ids,
          params: { timeout_ms: 10_000 },
        }),
      ),
    );
    for (const c of created) expect(c.status).toBe(202);
    await new Promise((r) => setTimeout(r, 500));
    const { stoppedAt, backAt } = await pg.away(outageSeconds);
    // After the return: the moment every node used to look offline.
    await new Promise((r) => setTimeout(r, 4000));
    done = true;
    await traffic;

    const during = probes.filter((c) => c.at > stoppedAt && c.at < backAt);
    const after = probes.filter((c) => c.at > backAt);
    expect(during.length).toBeGreaterThan(outageSeconds);
    expect(after.length).toBeGreaterThan(4);
    for (const c of probes) {
      expect(c.status, JSON.stringify(c.body)).toBe(200);
      const results = c.body.data.results as {
        node_id: string;
        success: boolean;
        error?: { code: string };
      }[];
      expect(results.map((r) => r.node_id).sort()).toEqual(ids);
      for (const r of results) expect(r.error?.code, `${r.node_id} at ${c.at}`).not.toBe("node_offline");
      expect(results.every((r) => r.success)).toBe(true);
    }
    expect(lists.filter((c) => c.at > stoppedAt && c.at < backAt).length).toBeGreaterThan(2);
    for (const c of lists) {
      expect(c.status).toBe(200);
      const items = c.body.data.items as { id: string; status: string }[];
      expect(items.map((n) => [n.id, n.status])).toEqual(ids.map((id) => [id, "online"]));
    }

    // Form A needs the database to store its tasks: those created before the outage end `done`.
    for (const c of created) {
      const id = c.body.data.task_id as string;
      const end = Date.now() + 30_000;
      let task: Call;
      for (;;) {
        task = await call(apiA, "GET", `/v1/probe/tasks/${id}`);
        if (task.status === 200 && ["done", "failed"].includes(task.body.data.status)) break;
        if (Date.now() > end) throw new Error(`task ${id} not finished: ${JSON.stringify(task.body)}`);
        await new Promise((r) => setTimeout(r, 200));
      }
      expect(task.body.data.status).toBe("done");
      expect(task.body.data.results).toHaveLength(ids.length);
    }
  }, 120_000);
});
