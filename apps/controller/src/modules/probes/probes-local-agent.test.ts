import { createServer as createHttpServer, type Server } from "node:http";
import { type AddressInfo, createServer as createTcpServer } from "node:net";
import { verifyResultSignature } from "@vantage/protocol";
import { createTestDatabase, type TestDatabase } from "@vantage/testing";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Runtime, startRuntime } from "../../runtime.js";
import { lendPgliteDb } from "../../testing/pglite-pool.js";
import { type DbKind, dbKinds, forms, testConfig } from "../../testing/test-app.js";

/**
 * The embedded mode as `pnpm start` runs it: the real runtime with its in-process local agent running the
 * real probes, against a loopback TCP listener and HTTP server.
 */
describe.each(dbKinds)("embedded local agent on %s", (kind: DbKind) => {
  let pg: TestDatabase | undefined;
  let http: Server;
  let tcp: ReturnType<typeof createTcpServer>;
  let httpUrl: string;
  let tcpPort: number;
  beforeAll(async () => {
    if (kind === "postgres") pg = await createTestDatabase();
    http = createHttpServer((_req, res) => res.end("hi"));
    tcp = createTcpServer((s) => s.end());
    await Promise.all([
      new Promise<void>((r) => http.listen(0, "127.0.0.1", r)),
      new Promise<void>((r) => tcp.listen(0, "127.0.0.1", r)),
    ]);
    httpUrl = `http://127.0.0.1:${(http.address() as AddressInfo).port}/`;
    tcpPort = (tcp.address() as AddressInfo).port;
  });
  afterAll(async () => {
    http.closeAllConnections();
    await new Promise((r) => http.close(r));
    await new Promise((r) => tcp.close(r));
    await pg?.drop();
  });

  describe.each(forms)("form %s", (form) => {
    let rt: Runtime;
    beforeAll(async () => {
      const env: Record<string, string> = { VANTAGE_ALLOW_PRIVATE_TARGETS: "true" };
      if (pg) env.DATABASE_URL = pg.url;
      rt = await startRuntime(testConfig(form, env), pino({ level: "silent" }), {
        db: (await lendPgliteDb()).db,
      });
    });
    afterAll(async () => {
      await rt.stop();
    });

    const call = async (method: string, path: string, body?: unknown) => {
      const res = await rt.app.request(path, {
        method,
        ...(body ? { body: JSON.stringify(body), headers: { "content-type": "application/json" } } : {}),
      });
      // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON bodies
      return { status: res.status, body: (await res.json()) as any };
    };
    const run = async (type: string, body: unknown) => {
      const created = await call("POST", `/v1/probe/${type}`, body);
      expect(created.status, JSON.stringify(created.body)).toBe(form === "a" ? 202 : 200);
      if (form === "b") return created.body.data.results;
      for (;;) {
        const task = await call("GET", `/v1/probe/tasks/${created.body.data.task_id}`);
        if (task.body.data.status === "done" || task.body.data.status === "failed")
          return task.body.data.results;
        await new Promise((r) => setTimeout(r, 20));
      }
    };

    it("lists the local node online", async () => {
      const res = await call("GET", "/v1/nodes");
      expect(res.body.data.items).toEqual([
        expect.objectContaining({ id: "local", name: "Local node", country: "ZZ", status: "online" }),
      ]);
    });

    it("runs a real TCP probe against a loopback listener", async () => {
      const body = form === "a" ? { target: `127.0.0.1:${tcpPort}` } : { host: "127.0.0.1", port: tcpPort };
      const [r] = await run("tcp", body);
      expect(r).toMatchObject({ node_id: "local", node_name: "Local node", success: true, port: tcpPort });
      expect(r.connect_ms).toBeGreaterThanOrEqual(0);
      expect(r.latency_ms).toBe(r.connect_ms);
    });

    it("runs a real HTTP probe against a loopback server", async () => {
      const [r] = await run("http", form === "a" ? { target: httpUrl } : { url: httpUrl });
      expect(r).toMatchObject({
        node_id: "local",
        success: true,
        status_code: 200,
        resolved_ip: "127.0.0.1",
      });
      expect(r.timings.total).toBeGreaterThan(0);
    });

    it("the local node signs its results with a key of its own, shown in the node list", async () => {
      const nodes = await call("GET", "/v1/nodes");
      const key = nodes.body.data.items[0].public_key as string;
      expect(key).toMatch(/^U[A-Z2-7]{55}$/);
      const body = form === "a" ? { target: `127.0.0.1:${tcpPort}` } : { host: "127.0.0.1", port: tcpPort };
      const created = await call("POST", "/v1/probe/tcp", body);
      const id = created.body.data.task_id as string;
      for (let i = 0; i < 500; i++) {
        const task = await call("GET", `/v1/probe/tasks/${id}`);
        if (task.body.data.status === "done") break;
        await new Promise((r) => setTimeout(r, 20));
      }
      const exported = await call("GET", `/v1/probe/tasks/${id}/export`);
      const [sig] = exported.body.data.signatures;
      expect(sig).toMatchObject({ node_id: "local", public_key: key });
      expect(verifyResultSignature(key, sig.statement, sig.signature)).toBe(true);
    });

    it("a refused connection is a probe failure, not a node failure", async () => {
      const closed = createTcpServer();
      await new Promise<void>((r) => closed.listen(0, "127.0.0.1", r));
      const port = (closed.address() as AddressInfo).port;
      await new Promise((r) => closed.close(r));
      const [r] = await run(
        "tcp",
        form === "a" ? { target: `127.0.0.1:${port}` } : { host: "127.0.0.1", port },
      );
      expect(r).toMatchObject({ success: false, error: { code: "connection_refused" } });
    });
  });
});
