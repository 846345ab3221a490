import { verifyResultSignature } from "@vantage/protocol";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { verifySource } from "../../../cli/src/verify.js";
import { type Cluster, type Controller, startCluster } from "./cluster.js";
import { call } from "./http-call.js";
import { startTargets, type Targets } from "./targets.js";

/**
 * End to end: nats-server with per-agent nkey credentials, PostgreSQL, three agent processes and the
 * controller as a process (once per API form); every probe type against loopback targets, and an agent
 * killed with SIGKILL in the middle of a probe.
 */
const agents = [
  { id: "e2e-fra", country: "DE", region: "eu-central", provider: "hetzner" },
  { id: "e2e-nyc", country: "US", region: "us-east", provider: "digitalocean" },
  { id: "e2e-sgp", country: "SG", region: "ap-southeast", provider: "vultr" },
];
const ids = agents.map((a) => a.id);

// biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON bodies
type Json = any;

/** Every answer is checked against the controller's form's document (`call`). */
const post = (to: Controller, path: string, body: unknown) => call(to, "POST", path, body);
const getTask = async (to: Controller, id: string): Promise<Json> =>
  (await call(to, "GET", `/v1/probe/tasks/${id}`)).body;

/** Form A: POST then poll the task; Form B: the POST answer. Returns the per-node results. */
async function probe(to: Controller, type: string, body: unknown): Promise<Json[]> {
  const created = await post(to, `/v1/probe/${type}`, body);
  expect(created.status, JSON.stringify(created.body)).toBe(to.form === "a" ? 202 : 200);
  if (to.form === "b") return created.body.data.results;
  expect(created.body.data.status).toBe("queued");
  const id = created.body.data.task_id;
  for (let i = 0; i < 600; i++) {
    const task = await getTask(to, id);
    if (task.data.status === "done" || task.data.status === "failed") return task.data.results;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`task ${id} did not finish`);
}

async function probeDone(to: Controller, id: string): Promise<void> {
  for (let i = 0; i < 600; i++) {
    const task = await getTask(to, id);
    if (task.data.status === "done" || task.data.status === "failed") return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`task ${id} did not finish`);
}

function bodies(form: "a" | "b", t: Targets) {
  const dnsPort = t.dnsServer;
  return form === "a"
    ? {
        http: { target: `${t.httpUrl}/`, node_ids: ids },
        https: { target: `${t.httpsUrl}/`, node_ids: ids },
        ping: { target: "127.0.0.1", node_ids: ids, params: { count: 2 } },
        dns: { target: "e2e.example", node_ids: ids, params: { record_type: "A", server: dnsPort } },
        tcp: { target: `127.0.0.1:${t.tcpPort}`, node_ids: ids },
        traceroute: { target: "127.0.0.1", node_ids: ids, params: { max_hops: 3 } },
      }
    : {
        http: { url: `${t.httpUrl}/`, nodes: ids },
        https: { url: `${t.httpsUrl}/`, nodes: ids },
        ping: { host: "127.0.0.1", nodes: ids, count: 2 },
        dns: { domain: "e2e.example", nodes: ids, record_type: "A", server: dnsPort },
        tcp: { host: "127.0.0.1", port: t.tcpPort, nodes: ids },
        traceroute: { host: "127.0.0.1", nodes: ids, max_hops: 3 },
      };
}

describe("probes end to end (NATS, PostgreSQL, 3 agent processes, controller process)", () => {
  let cluster: Cluster;
  let targets: Targets;
  beforeAll(async () => {
    [cluster, targets] = await Promise.all([startCluster(agents), startTargets()]);
  }, 120_000);
  afterAll(async () => {
    await targets?.close();
    await cluster?.stop();
  });

  describe.each(["a", "b"] as const)("form %s", (form) => {
    let controller: Controller;
    beforeAll(async () => {
      controller = await cluster.startController({ VANTAGE_API_FORM: form });
      await cluster.waitForNodes(controller.url, ids);
    }, 90_000);
    afterAll(async () => {
      await controller?.stop();
    });

    it("every probe type from all three nodes against loopback targets", async () => {
      const b = bodies(form, targets);
      const [http, https, ping, dns, tcp, traceroute] = await Promise.all([
        probe(controller, "http", b.http),
        probe(controller, "http", b.https),
        probe(controller, "ping", b.ping),
        probe(controller, "dns", b.dns),
        probe(controller, "tcp", b.tcp),
        probe(controller, "traceroute", b.traceroute),
      ]);
      for (const results of [http, https, ping, dns, tcp, traceroute]) {
        expect(results.map((r: Json) => r.node_id)).toEqual(ids);
        expect(results.map((r: Json) => r.node_name)).toEqual(ids.map((id) => `Agent ${id}`));
      }
      for (const r of http) {
        expect(r, JSON.stringify(r)).toMatchObject({
          success: true,
          status_code: 200,
          resolved_ip: "127.0.0.1",
        });
        expect(r.latency_ms).toBeGreaterThan(0);
        expect(r.timings.total).toBeGreaterThan(0);
      }
      for (const r of https) {
        expect(r.tls, JSON.stringify(r)).toMatchObject({ subject: expect.stringContaining("localhost") });
      }
      for (const r of ping) {
        expect(r, JSON.stringify(r)).toMatchObject({
          success: true,
          packets_sent: 2,
          packets_received: 2,
          packet_loss: 0,
        });
        expect(r.rtt.avg).toBeGreaterThanOrEqual(0);
      }
      for (const r of dns) {
        expect(r, JSON.stringify(r)).toMatchObject({ success: true, rcode: "NOERROR" });
        expect(r.answers.map((a: Json) => a.value)).toEqual([targets.dnsAnswer]);
      }
      for (const r of tcp) {
        expect(r, JSON.stringify(r)).toMatchObject({
          success: true,
          port: targets.tcpPort,
          resolved_ip: "127.0.0.1",
        });
        expect(r.connect_ms).toBeGreaterThanOrEqual(0);
      }
      for (const r of traceroute) {
        expect(r, JSON.stringify(r)).toMatchObject({ success: true, reached: true });
        expect(r.hops.length).toBeGreaterThanOrEqual(1);
      }
    }, 60_000);

    it("a stored task reads back the same through GET /v1/probe/tasks/{id}", async () => {
      const b = bodies(form, targets);
      const created = await post(controller, "/v1/probe/tcp", b.tcp);
      const id = created.body.data.task_id;
      const results = await probe(controller, "tcp", b.tcp);
      expect(results).toHaveLength(3);
      const again = await getTask(controller, id);
      expect(again.data.task_id).toBe(id);
      expect(again.data.type).toBe("tcp");
    });

    it("each agent signs with its nkey; the export verifies offline against /v1/nodes (vantage verify)", async () => {
      const results = await probe(controller, "tcp", bodies(form, targets).tcp);
      expect(results).toHaveLength(3);
      const nodes = (await call(controller, "GET", "/v1/nodes")).body.data.items as Json[];
      const keys = new Map(nodes.map((n) => [n.id, n.public_key]));
      for (const id of ids) expect(keys.get(id)).toMatch(/^U[A-Z2-7]{55}$/);
      expect(new Set(ids.map((id) => keys.get(id))).size).toBe(3);
      // The task's id: Form A's POST answer, Form B's too.
      const created = await post(controller, "/v1/probe/tcp", bodies(form, targets).tcp);
      const id = created.body.data.task_id as string;
      if (form === "a") await probeDone(controller, id);
      const exported = await call(controller, "GET", `/v1/probe/tasks/${id}/export`);
      expect(exported.status).toBe(200);
      const sigs = exported.body.data.signatures as Json[];
      expect(sigs.map((s) => s.node_id).sort()).toEqual([...ids].sort());
      for (const s of sigs) {
        expect(s.public_key).toBe(keys.get(s.node_id));
        expect(verifyResultSignature(s.public_key, s.statement, s.signature)).toBe(true);
      }
      const report = await verifySource(`${controller.url}/v1/probe/tasks/${id}/export`, undefined);
      expect(report.ok, report.lines.join("\n")).toBe(true);
      expect(report.lines.filter((l) => l.startsWith("ok "))).toHaveLength(3);
    }, 60_000);
  });

  it("Form B tasks are readable at once on another controller, and all stored when the first one stops", async () => {
    const [first, second] = await Promise.all([
      cluster.startController({ VANTAGE_API_FORM: "b" }),
      cluster.startController({ VANTAGE_API_FORM: "b" }),
    ]);
    try {
      await Promise.all([cluster.waitForNodes(first.url, ids), cluster.waitForNodes(second.url, ids)]);
      const body = bodies("b", targets).tcp;
      const answers = await Promise.all(Array.from({ length: 20 }, () => post(first, "/v1/probe/tcp", body)));
      const taskIds = answers.map((a) => a.body.data.task_id as string);
      // Straight after the answer, while the first controller may still hold the write.
      const early = await getTask(second, taskIds[19]!);
      expect(early.data).toMatchObject({ task_id: taskIds[19], status: "done" });
      expect(early.data.results).toEqual(answers[19]!.body.data.results);
      await first.stop(); // SIGTERM: the writes in flight finish before it exits
      for (const [i, id] of taskIds.entries()) {
        const res = await call(second, "GET", `/v1/probe/tasks/${id}`);
        expect(res.status).toBe(200);
        expect(res.body.data.results).toEqual(answers[i]!.body.data.results);
      }
    } finally {
      await first.stop();
      await second.stop();
    }
  }, 90_000);

  it("an agent killed with SIGKILL mid-probe gets success:false and the answer comes within deadline + 1 s", async () => {
    const controller = await cluster.startController({ VANTAGE_API_FORM: "b" });
    try {
      await cluster.waitForNodes(controller.url, ids);
      const timeoutS = 4; // deadline: 4 s + 1 s grace
      const started = performance.now();
      const pending = post(controller, "/v1/probe/http", {
        url: `${targets.httpUrl}/slow?ms=2500`,
        timeout: timeoutS,
        nodes: ids,
      });
      await new Promise((r) => setTimeout(r, 800));
      const victim = cluster.agents.get("e2e-nyc")!;
      victim.kill("SIGKILL");
      const res = await pending;
      const elapsed = performance.now() - started;
      expect(res.status).toBe(200);
      const byId = Object.fromEntries(res.body.data.results.map((r: Json) => [r.node_id, r]));
      expect(byId["e2e-nyc"]).toMatchObject({
        success: false,
        error: { code: expect.stringMatching(/^node_/) },
      });
      expect(byId["e2e-fra"]).toMatchObject({ success: true, status_code: 200 });
      expect(byId["e2e-sgp"]).toMatchObject({ success: true, status_code: 200 });
      expect(elapsed).toBeLessThan((timeoutS + 1) * 1000 + 1000);
    } finally {
      await controller.stop();
    }
  }, 90_000);
});
