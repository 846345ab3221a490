import { describe, expect, it } from "vitest";
import { never, refusedReply, serveNode, settle } from "../../testing/agents.js";
import { runTask, tcpBody } from "../../testing/probe-requests.js";
import { dbKinds, type Form, forms } from "../../testing/test-app.js";
import { useTestDb } from "../../testing/use-test-db.js";

/** Probe task logic through the HTTP API with agent doubles on the in-process bus, both forms, both databases. */
describe.each(dbKinds)("probes on %s", (kind) => {
  const db = useTestDb(kind);
  const fresh = (form: Form, env: Record<string, string> = {}) =>
    db.freshApp(form, { VANTAGE_ALLOW_PRIVATE_TARGETS: "false", ...env });

  describe.each(forms)("form %s", (form) => {
    const nodesField = form === "a" ? "node_ids" : "nodes";

    it("runs on up to 3 online nodes and answers in the form's shape with per-type fields", async () => {
      const t = await fresh(form);
      for (const [id, country] of [
        ["de1", "DE"],
        ["us1", "US"],
        ["sg1", "SG"],
        ["jp1", "JP"],
      ] as const)
        serveNode(t.bus, { id, country, region: `r-${country}`, provider: `p-${country}` });
      await settle();
      const { created, task, results } = await runTask(t, form, "tcp", tcpBody(form, "example.com", 443));
      if (form === "a") {
        expect(created.status).toBe(202);
        expect(created.body.data).toEqual({
          task_id: expect.stringMatching(/^task_/),
          task_ids: [created.body.data.task_id],
          status: "queued",
        });
        expect(task.status).toBe("done");
      } else {
        expect(created.status).toBe(200);
        expect(Object.keys(created.body.data).sort()).toEqual(["results", "status", "task_id"]);
        expect(task.status).toBe("done");
      }
      expect(results).toHaveLength(3);
      for (const r of results) {
        expect(r).toMatchObject({
          node_id: expect.any(String),
          node_name: expect.stringMatching(/^Node /),
          success: true,
          latency_ms: 1.5,
          port: 443,
          connect_ms: 1.5,
          resolved_ip: "192.0.2.10",
        });
        expect(r.error).toBeUndefined();
      }
    });

    it("spreads automatic picks over countries, least loaded first", async () => {
      const t = await fresh(form);
      serveNode(t.bus, { id: "de-busy", country: "DE", runningJobs: 8 });
      serveNode(t.bus, { id: "de-idle", country: "DE", runningJobs: 0 });
      serveNode(t.bus, { id: "us1", country: "US", region: "us-east", provider: "aws" });
      serveNode(t.bus, { id: "sg1", country: "SG", region: "ap-se", provider: "do" });
      await settle();
      const { results } = await runTask(t, form, "tcp", tcpBody(form, "example.com", 443));
      expect(results.map((r) => r.node_id).sort()).toEqual(["de-idle", "sg1", "us1"]);
    });

    it("honours VANTAGE_DEFAULT_NODES", async () => {
      const t = await fresh(form, { VANTAGE_DEFAULT_NODES: "1" });
      serveNode(t.bus, { id: "n1" });
      serveNode(t.bus, { id: "n2" });
      await settle();
      const { results } = await runTask(t, form, "tcp", tcpBody(form, "example.com", 443));
      expect(results).toHaveLength(1);
    });

    it("named nodes: unknown id → 400 naming the field; known but offline → node_offline entry", async () => {
      const t = await fresh(form);
      serveNode(t.bus, { id: "live" });
      const leaving = serveNode(t.bus, { id: "leaving" });
      await settle();
      const bad = await t.call("POST", "/v1/probe/tcp", {
        body: tcpBody(form, "example.com", 443, ["live", "ghost"]),
      });
      expect(bad.status).toBe(400);
      expect(bad.body.error.code).toBe("validation_error");
      expect(bad.body.error.details).toEqual([
        { path: `body.${nodesField}.1`, message: 'unknown node id "ghost"' },
      ]);

      leaving.heartbeat({ draining: true });
      await settle();
      const { results } = await runTask(
        t,
        form,
        "tcp",
        tcpBody(form, "example.com", 443, ["live", "leaving", "live"]),
      );
      expect(results.map((r) => [r.node_id, r.success, r.error?.code])).toEqual([
        ["live", true, undefined],
        ["leaving", false, "node_offline"],
      ]);
    });

    it("maps no responders, busy, refusals, bad and foreign replies to node-level error codes", async () => {
      const t = await fresh(form);
      const gone = serveNode(t.bus, { id: "gone" });
      serveNode(t.bus, { id: "busy" }, (job) => refusedReply(job, "busy"));
      serveNode(t.bus, { id: "invalid" }, (job) => refusedReply(job, "invalid_job"));
      serveNode(t.bus, { id: "garbage" }, () => ({ ok: false, error: { code: "bad_message" } }));
      serveNode(t.bus, { id: "newer" }, (job) => ({ ...(refusedReply(job, "busy") as object), v: 2 }));
      serveNode(t.bus, { id: "other-job" }, (job) => ({
        ...(refusedReply(job, "busy") as object),
        job_id: "x",
      }));
      await settle();
      await gone.stop(); // still online by heartbeat, but nobody serves its subject any more
      const ids = ["gone", "busy", "invalid", "garbage", "newer", "other-job"];
      const { task, results } = await runTask(t, form, "tcp", tcpBody(form, "example.com", 443, ids));
      expect(results.map((r) => [r.node_id, r.success, r.error.code])).toEqual([
        ["gone", false, "node_offline"],
        ["busy", false, "node_busy"],
        ["invalid", false, "node_error"],
        ["garbage", false, "node_error"],
        ["newer", false, "incompatible_version"],
        ["other-job", false, "node_error"],
      ]);
      expect(task.status).toBe(form === "a" ? "failed" : "done");
    });

    it("a silent node becomes node_timeout at its deadline, and the others are not held back", async () => {
      const t = await fresh(form);
      serveNode(t.bus, { id: "silent" }, never);
      serveNode(t.bus, { id: "quick", country: "US" });
      await settle();
      // TCP timeout 1 s → per-node deadline 1 s + 1 s grace.
      const { results, ms } = await runTask(t, form, "tcp", tcpBody(form, "example.com", 443, undefined, 1));
      const byId = Object.fromEntries(results.map((r) => [r.node_id, r]));
      expect(byId.silent).toMatchObject({
        success: false,
        latency_ms: null,
        error: { code: "node_timeout" },
      });
      expect(byId.quick.success).toBe(true);
      expect(ms).toBeGreaterThanOrEqual(1900);
      expect(ms).toBeLessThan(3000);
    });

    it("sends the job per the protocol: version, job id, relative budget and the spec with defaults", async () => {
      const t = await fresh(form);
      const node = serveNode(t.bus, { id: "n1" });
      await settle();
      await runTask(
        t,
        form,
        "ping",
        form === "a" ? { target: "example.com", params: { count: 2 } } : { host: "example.com", count: 2 },
      );
      const job = node.jobs[0]!;
      expect(job.v).toBe(1);
      expect(job.job_id).toMatch(/^task_.+\.0$/);
      expect(job.spec).toEqual({
        type: "ping",
        params: { host: "example.com", count: 2, timeout_ms: 5000, interval_ms: 200 },
      });
      // ping budget: count × interval + timeout, plus 1 s grace, less the 400 ms network allowance; no
      // absolute time travels, so the agent's clock does not matter.
      expect(job.budget_ms).toBe(2 * 200 + 5000 + 1000 - 400);
      expect(job).not.toHaveProperty("deadline");
    });

    it("no online node → 503 no_nodes_available", async () => {
      const t = await fresh(form);
      const res = await t.call("POST", "/v1/probe/tcp", { body: tcpBody(form, "example.com", 443) });
      expect(res.status).toBe(503);
      expect(res.body.error.code).toBe("no_nodes_available");
    });

    it("stores every task: GET /v1/probe/tasks/{id} reads it again; unknown id → 404", async () => {
      const t = await fresh(form);
      serveNode(t.bus, { id: "n1" });
      await settle();
      const { created, results } = await runTask(
        t,
        form,
        "dns",
        form === "a"
          ? { target: "example.com", params: { record_type: "A" } }
          : { domain: "example.com", record_type: "A" },
      );
      const again = await t.call("GET", `/v1/probe/tasks/${created.body.data.task_id}`);
      expect(again.status).toBe(200);
      expect(again.body.data).toMatchObject({
        task_id: created.body.data.task_id,
        type: "dns",
        target: "example.com",
        status: "done",
        created_at: expect.stringMatching(/Z$/),
        finished_at: expect.stringMatching(/Z$/),
      });
      expect(again.body.data.results).toEqual(results);
      expect(results[0]).toMatchObject({
        rcode: "NOERROR",
        query_time_ms: 1.5,
        answers: [{ value: "192.0.2.1" }],
      });
      const missing = await t.call("GET", "/v1/probe/tasks/task_doesnotexist");
      expect(missing.status).toBe(404);
      expect(missing.body.error.code).toBe("not_found");
    });

    it("refuses literal private or loopback targets with 422 target_not_allowed", async () => {
      const t = await fresh(form);
      serveNode(t.bus, { id: "n1" });
      await settle();
      const cases =
        form === "a"
          ? [
              ["http", { target: "http://127.0.0.1:8080/" }, "body.target"],
              ["http", { target: "http://[::1]/" }, "body.target"],
              ["ping", { target: "10.1.2.3" }, "body.target"],
              ["tcp", { target: "169.254.169.254:80" }, "body.target"],
              ["dns", { target: "example.com", params: { server: "192.168.1.1:53" } }, "body.params.server"],
            ]
          : [
              ["http", { url: "http://127.0.0.1:8080/" }, "body.url"],
              ["http", { url: "http://[::1]/" }, "body.url"],
              ["ping", { host: "10.1.2.3" }, "body.host"],
              ["tcp", { host: "169.254.169.254", port: 80 }, "body.host"],
              ["dns", { domain: "example.com", server: "192.168.1.1:53" }, "body.server"],
            ];
      for (const [type, body, path] of cases) {
        const res = await t.call("POST", `/v1/probe/${type}`, { body });
        expect(res.status, JSON.stringify(body)).toBe(422);
        expect(res.body.error.code).toBe("target_not_allowed");
        expect(res.body.error.details[0].path).toBe(path);
      }
      const allowed = await fresh(form, { VANTAGE_ALLOW_PRIVATE_TARGETS: "true" });
      serveNode(allowed.bus, { id: "n1" });
      await settle();
      const res = await allowed.call("POST", "/v1/probe/tcp", { body: tcpBody(form, "127.0.0.1", 80) });
      expect(res.status).toBe(form === "a" ? 202 : 200);
    });
  });
});
