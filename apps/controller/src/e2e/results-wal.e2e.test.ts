import { once } from "node:events";
import { type AddressInfo, createServer, type Server } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Cluster, type Controller, shortLeases, startCluster } from "./cluster.js";
import { call } from "./http-call.js";

/**
 * The results write-ahead log (ADR 0012), with real processes: nats-server with JetStream, PostgreSQL, an
 * agent and two Form B controllers. A controller killed with SIGKILL in the middle of its answers loses
 * none of them: every task it answered is stored by the other controller from the log and read there.
 * Without JetStream, a controller serves as before (write-behind alone). The two blocks have a cluster
 * each, so they run side by side (`describe.concurrent`): the second fits in the first one's lease wait.
 */
const agents = [{ id: "wal-fra", country: "DE", region: "eu-central", provider: "hetzner" }];
const nodeIds = agents.map((a) => a.id);

let target: Server;
let targetPort: number;
beforeAll(async () => {
  target = createServer((s) => s.end());
  target.listen(0, "127.0.0.1");
  await once(target, "listening");
  targetPort = (target.address() as AddressInfo).port;
});
afterAll(async () => {
  await new Promise((r) => target.close(r));
});

const probe = () => ({ host: "127.0.0.1", port: targetPort, timeout: 5 });

describe.concurrent("results write-ahead log, nats-server with JetStream", () => {
  let cluster: Cluster;
  let killed: Controller;
  let survivor: Controller;

  beforeAll(async () => {
    cluster = await startCluster(agents);
    [killed, survivor] = await Promise.all([
      cluster.startController({ VANTAGE_API_FORM: "b", ...shortLeases }),
      cluster.startController({ VANTAGE_API_FORM: "b", ...shortLeases }),
    ]);
    await Promise.all([
      cluster.waitForNodes(killed.url, nodeIds),
      cluster.waitForNodes(survivor.url, nodeIds),
    ]);
  }, 300_000);

  afterAll(async () => {
    await cluster?.stop();
  });

  it("a controller killed with SIGKILL amid its answers loses none: the other stores and serves each one", async () => {
    // 8 requests at a time on one controller; SIGKILL it while they keep coming, so the last answers are
    // ones its writer had not stored yet.
    const answered: string[] = [];
    let stop = false;
    const loop = async () => {
      while (!stop) {
        try {
          const res = await call(killed, "POST", "/v1/probe/tcp", probe());
          if (res.status === 200 && res.body.data.status === "done") answered.push(res.body.data.task_id);
        } catch {
          return; // the controller is gone: this request had no answer
        }
      }
    };
    const loops = Array.from({ length: 8 }, loop);
    while (answered.length < 100) await new Promise((r) => setTimeout(r, 20));
    await killed.kill("SIGKILL");
    stop = true;
    await Promise.all(loops);

    // The survivor stores what the killed controller left in the log once its lease has gone stale (8 s
    // here) and its scheduler role's next drain runs (every 2 s); until then a read of such a task is a 404.
    const missing = new Set(answered);
    const deadline = Date.now() + 90_000;
    while (missing.size > 0 && Date.now() < deadline) {
      for (const id of [...missing]) {
        const res = await call(survivor, "GET", `/v1/probe/tasks/${id}`);
        if (res.status === 200) {
          expect(res.body.data).toMatchObject({ task_id: id, status: "done" });
          expect(res.body.data.results).toHaveLength(1);
          missing.delete(id);
        } else expect(res.status).toBe(404);
      }
      if (missing.size > 0) await new Promise((r) => setTimeout(r, 1000));
    }
    expect([...missing]).toEqual([]);
  }, 180_000);
});

describe.concurrent("results write-ahead log, nats-server without JetStream", () => {
  let cluster: Cluster;
  let controller: Controller;

  beforeAll(async () => {
    cluster = await startCluster(agents, { jetstream: false });
    controller = await cluster.startController({ VANTAGE_API_FORM: "b" });
    await cluster.waitForNodes(controller.url, nodeIds);
  }, 300_000);

  afterAll(async () => {
    await cluster?.stop();
  });

  it("answers and stores Form B probes as before, written behind the answer", async () => {
    const created = await call(controller, "POST", "/v1/probe/tcp", probe());
    expect(created.status).toBe(200);
    expect(created.body.data.status).toBe("done");
    const id = created.body.data.task_id as string;
    await controller.stop(); // SIGTERM: the writer drains first
    const again = await cluster.startController({ VANTAGE_API_FORM: "b" });
    const read = await call(again, "GET", `/v1/probe/tasks/${id}`);
    expect(read.status).toBe(200);
    expect(read.body.data).toMatchObject({ task_id: id, status: "done" });
  }, 60_000);
});
