import { describe, expect, it } from "vitest";
import { never, refusedReply, serveNode, settle } from "../../testing/agents.js";
import { runTask, tcpBody } from "../../testing/probe-requests.js";
import { type ApiOnlyTestApp, dbKinds, type Form, forms } from "../../testing/test-app.js";
import { useTestDb } from "../../testing/use-test-db.js";

/**
 * A node a probe finds unreachable is offline in the node directory at once (the node list, automatic
 * selection), not only once its heartbeats have been missing for VANTAGE_NODE_OFFLINE_AFTER_MS; its next
 * heartbeat brings it back. On a controller with the presence role and on one without it (api only), which
 * follows the same heartbeats and keeps its own marks.
 */
describe.each(dbKinds)("consistent node state on %s", (kind) => {
  const db = useTestDb(kind);
  const env = { VANTAGE_ALLOW_PRIVATE_TARGETS: "false" };

  const statusOf = async (t: Pick<ApiOnlyTestApp, "call">, id: string): Promise<string | undefined> => {
    const res = await t.call("GET", "/v1/nodes");
    expect(res.status).toBe(200);
    return (res.body.data.items as Array<{ id: string; status: string }>).find((n) => n.id === id)?.status;
  };

  /** Form B only: its answer is final, so this works for any app (runTask wants a presence app). */
  const probeB = async (t: Pick<ApiOnlyTestApp, "call">, nodes?: string[]) => {
    const res = await t.call("POST", "/v1/probe/tcp", { body: tcpBody("b", "example.com", 443, nodes) });
    expect(res.status).toBe(200);
    return res.body.data.results as Array<{ node_id: string; success: boolean; error?: { code: string } }>;
  };

  describe.each(forms)("form %s, presence role (in-memory directory)", (form: Form) => {
    it("a probe finding a node gone marks it offline at once: listed offline, not picked, back on its next heartbeat", async () => {
      const t = await db.freshApp(form, env);
      serveNode(t.bus, { id: "live", country: "DE" });
      const dead = serveNode(t.bus, { id: "dead", country: "US", region: "us-east", provider: "aws" });
      await settle();
      // Killed: it answers nothing and heartbeats no more; its last heartbeat is still fresh.
      await dead.stop();
      expect(await statusOf(t, "dead")).toBe("online");

      const named = await runTask(t, form, "tcp", tcpBody(form, "example.com", 443, ["dead"]));
      expect(named.results.map((r) => [r.node_id, r.success, r.error?.code])).toEqual([
        ["dead", false, "node_offline"],
      ]);
      expect(await statusOf(t, "dead")).toBe("offline");
      expect((await t.modules.nodes.service.online()).map((n) => n.id)).toEqual(["live"]);

      // Automatic selection (up to 3 nodes) skips it: only the live node runs, and nothing fails.
      const auto = await runTask(t, form, "tcp", tcpBody(form, "example.com", 443));
      expect(auto.results.map((r) => [r.node_id, r.success])).toEqual([["live", true]]);

      // Named again before it is back: answered from the directory, without a job.
      const again = await runTask(t, form, "tcp", tcpBody(form, "example.com", 443, ["dead"]));
      expect(again.results.map((r) => [r.node_id, r.error?.code])).toEqual([["dead", "node_offline"]]);

      // Its next heartbeat brings it back.
      const revived = serveNode(t.bus, { id: "dead", country: "US", region: "us-east", provider: "aws" });
      await settle();
      expect(await statusOf(t, "dead")).toBe("online");
      const both = await runTask(t, form, "tcp", tcpBody(form, "example.com", 443));
      expect(both.results.map((r) => [r.node_id, r.success]).sort()).toEqual([
        ["dead", true],
        ["live", true],
      ]);
      expect(revived.jobs).toHaveLength(1);
    });
  });

  it("a node refusing jobs because it is shutting down is offline at once too", async () => {
    const t = await db.freshApp("b", env);
    serveNode(t.bus, { id: "leaving" }, (job) => refusedReply(job, "shutting_down"));
    await settle();
    expect((await probeB(t, ["leaving"])).map((r) => r.error?.code)).toEqual(["node_offline"]);
    expect(await statusOf(t, "leaving")).toBe("offline");
  });

  it("a node that times out stays online: a slow node is not a gone one", async () => {
    const t = await db.freshApp("b", env);
    serveNode(t.bus, { id: "slow" }, never);
    await settle();
    const res = await t.call("POST", "/v1/probe/tcp", {
      body: tcpBody("b", "example.com", 443, ["slow"], 1),
    });
    expect(res.body.data.results.map((r: { error: { code: string } }) => r.error.code)).toEqual([
      "node_timeout",
    ]);
    expect(await statusOf(t, "slow")).toBe("online");
  });

  describe("a controller without the presence role (api only)", () => {
    it("marks the node offline at once in its own view, heard from heartbeats; its next heartbeat brings it back", async () => {
      // Both follow the same heartbeats; only `presenceApp` writes the table, and a mark is each one's own.
      const presenceApp = await db.freshApp("b", env);
      const api = db.app("b", env, { presence: false, bus: presenceApp.bus });
      serveNode(presenceApp.bus, { id: "live", country: "DE" });
      const dead = serveNode(presenceApp.bus, {
        id: "dead",
        country: "US",
        region: "us-east",
        provider: "aws",
      });
      await settle();
      await dead.stop();
      expect(await statusOf(api, "dead")).toBe("online");

      expect((await probeB(api, ["dead"])).map((r) => [r.node_id, r.error?.code])).toEqual([
        ["dead", "node_offline"],
      ]);
      expect(await statusOf(api, "dead")).toBe("offline");
      expect(await statusOf(presenceApp, "dead")).toBe("online");
      expect((await probeB(api)).map((r) => [r.node_id, r.success])).toEqual([["live", true]]);

      // Back: its heartbeat reaches this controller directly, with no table in between.
      serveNode(presenceApp.bus, { id: "dead", country: "US", region: "us-east", provider: "aws" });
      await settle();
      expect(await statusOf(api, "dead")).toBe("online");
      expect((await probeB(api)).map((r) => [r.node_id, r.success]).sort()).toEqual([
        ["dead", true],
        ["live", true],
      ]);
    });
  });
});
