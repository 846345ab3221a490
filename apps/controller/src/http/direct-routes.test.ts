import { request as httpRequest } from "node:http";
import { pino } from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { heartbeatOf, settle } from "../testing/agents.js";
import { type RawAnswer, rawRequest } from "../testing/raw-http.js";
import { forms } from "../testing/test-app.js";
import { useTestDb } from "../testing/use-test-db.js";
import { requestIdOf } from "./context.js";
import { installCore } from "./core.js";
import { type DirectAnswer, directListener, directRoute } from "./direct-routes.js";
import { handleError } from "./errors-handler.js";
import { type Listening, listen } from "./listen.js";
import { HttpMetrics } from "./metrics.js";
import { createRouter, type Router } from "./router.js";

interface Line {
  msg: string;
  status?: number;
  method?: string;
  path?: string;
  request_id?: string;
}

const servers: Listening[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});

/** `app` behind Node's own server with its direct routes, as `runtime.ts` serves it. */
async function serve(app: Router): Promise<string> {
  const server = await listen({
    fetch: app.fetch,
    direct: directListener(app),
    host: "127.0.0.1",
    port: 0,
    graceMs: 1000,
    log: pino({ level: "silent" }),
  });
  servers.push(server);
  return server.url;
}

/** The parts of an answer a client relies on (not `Date`, not the request id unless the caller chose it). */
function shape(a: RawAnswer) {
  return {
    status: a.status,
    type: a.headers["content-type"],
    length: a.headers["content-length"],
    chunked: a.headers["transfer-encoding"],
    nosniff: a.headers["x-content-type-options"],
    id: a.headers["x-request-id"],
    body: a.body.toString("utf8"),
  };
}

describe("direct routes: answered before the router, recorded as the router's answers are", () => {
  /** A route on the router and as a direct route, the same answer; `mode` picks what the direct one does. */
  function fastApp() {
    const lines: Line[] = [];
    const log = pino({ level: "info" }, { write: (line: string) => lines.push(JSON.parse(line)) });
    const metrics = new HttpMetrics(false);
    const app = createRouter();
    installCore(app, { log, metrics, accessLog: true, trustedProxies: [] });
    let routed = 0;
    const answer = (id: string): DirectAnswer => ({
      status: 200,
      type: "application/json",
      body: JSON.stringify({ thing: "ünïcode", request_id: id }),
    });
    app.get("/thing", (c) => {
      routed++;
      const { body, type } = answer(requestIdOf(c));
      return c.body(body, 200, { "Content-Type": type });
    });
    let mode: "answer" | "pass" | "throw" = "answer";
    directRoute(app, "/thing", (id) => {
      if (mode === "throw") throw new Error("broken direct route");
      return mode === "answer" ? answer(id) : undefined;
    });
    app.onError(handleError);
    return {
      app,
      metrics,
      access: () => lines.filter((l) => l.msg === "request"),
      errors: () => lines.filter((l) => l.msg.startsWith("direct route failed")),
      routed: () => routed,
      setMode: (m: typeof mode) => {
        mode = m;
      },
    };
  }

  it("GET and HEAD of the exact path: the router's answer, byte for byte, without running the router", async () => {
    const t = fastApp();
    const url = await serve(t.app);
    const headers = { "x-request-id": "same-id" };

    const direct = await rawRequest(`${url}/thing`, headers);
    expect(t.routed()).toBe(0);
    // A query string goes to the router.
    const routed = await rawRequest(`${url}/thing?via=router`, headers);
    expect(t.routed()).toBe(1);
    expect(shape(direct)).toEqual(shape(routed));
    expect(shape(direct)).toMatchObject({
      status: 200,
      nosniff: "nosniff",
      id: "same-id",
      chunked: undefined,
    });
    expect(Number(direct.headers["content-length"])).toBe(direct.body.length);
    expect(JSON.parse(direct.body.toString("utf8"))).toEqual({ thing: "ünïcode", request_id: "same-id" });

    const head = await rawRequest(`${url}/thing`, headers, "HEAD");
    const routedHead = await rawRequest(`${url}/thing?via=router`, headers, "HEAD");
    expect(t.routed()).toBe(2);
    expect(head.body.length).toBe(0);
    // HEAD also says the length GET's body has (RFC 9110 §8.6); the router's HEAD leaves it out.
    expect(shape(head)).toEqual({ ...shape(routedHead), length: direct.headers["content-length"] });
  });

  it("makes its own request id when the caller's is missing or malformed, and puts it in the body", async () => {
    const t = fastApp();
    const url = await serve(t.app);
    for (const headers of [{}, { "x-request-id": "bad id!" }]) {
      const res = await rawRequest(`${url}/thing`, headers);
      const id = res.headers["x-request-id"];
      expect(id).toMatch(/^req_/);
      expect(JSON.parse(res.body.toString("utf8")).request_id).toBe(id);
    }
    expect(t.routed()).toBe(0);
  });

  it("counts in the route's metrics series and writes the access-log line, as for a routed answer", async () => {
    const t = fastApp();
    const url = await serve(t.app);
    await rawRequest(`${url}/thing`, { "x-request-id": "direct-1" });
    await rawRequest(`${url}/thing`, { "x-request-id": "direct-2" }, "HEAD");
    await rawRequest(`${url}/thing?x=1`, { "x-request-id": "routed-1" });
    expect(t.routed()).toBe(1);
    const text = await t.metrics.text();
    expect(text).toContain('vantage_http_requests_total{method="GET",route="/thing",status="200"} 2');
    expect(text).toContain('vantage_http_requests_total{method="HEAD",route="/thing",status="200"} 1');
    expect(
      t.access().map(({ request_id, method, path, status }) => [request_id, method, path, status]),
    ).toEqual([
      ["direct-1", "GET", "/thing", 200],
      ["direct-2", "HEAD", "/thing", 200],
      ["routed-1", "GET", "/thing", 200],
    ]);
  });

  it("a direct route that has no answer, or throws, leaves the request to the router (a throw is logged)", async () => {
    const t = fastApp();
    const url = await serve(t.app);
    t.setMode("pass");
    const passed = await rawRequest(`${url}/thing`, { "x-request-id": "pass-1" });
    expect(passed.status).toBe(200);
    expect(JSON.parse(passed.body.toString("utf8")).request_id).toBe("pass-1");
    expect(t.routed()).toBe(1);
    expect(t.errors()).toEqual([]);

    t.setMode("throw");
    const thrown = await rawRequest(`${url}/thing`, { "x-request-id": "throw-1" });
    expect(thrown.status).toBe(200);
    expect(t.routed()).toBe(2);
    expect(t.errors()).toMatchObject([{ path: "/thing", request_id: "throw-1" }]);
    // Each request is one access-log line, however it was answered.
    expect(t.access().map((l) => l.request_id)).toEqual(["pass-1", "throw-1"]);
  });

  it("other methods, other paths and absolute-form targets go to the router", async () => {
    const t = fastApp();
    const url = await serve(t.app);
    const post = await rawRequest(`${url}/thing`, {}, "POST");
    expect(post.status).toBe(404);
    expect((await rawRequest(`${url}/thing/`)).status).toBe(404);
    expect(t.routed()).toBe(0);
    // `GET http://host/thing` (a proxy's form): the router matches the path; the direct route only `/thing`.
    const absolute = await new Promise<number>((resolve, reject) => {
      httpRequest(url, { path: `${url}/thing` }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      })
        .on("error", reject)
        .end();
    });
    expect(absolute).toBe(200);
    expect(t.routed()).toBe(1);
  });

  it("registering a direct route before installCore is refused", () => {
    expect(() => directRoute(createRouter(), "/x", () => undefined)).toThrow(/installCore/);
  });
});

describe.each(forms)("the controller's direct routes, form %s: the same answers as its router's", (form) => {
  const db = useTestDb("pglite");

  it("GET /healthz and GET /v1/nodes (a small list), GET and HEAD", async () => {
    const t = await db.freshApp(form);
    const link = t.bus.agent();
    for (const id of ["d1", "d2"]) {
      link.publishHeartbeat(
        id,
        heartbeatOf({ id, country: "DE", region: "eu-central", provider: "hetzner" }),
      );
    }
    await settle();
    await t.presence.flush();
    const url = await serve(t.app);
    for (const path of ["/healthz", "/v1/nodes"]) {
      // An empty query string passes the direct routes by (they take the exact path) and names no parameter
      // the router would refuse.
      const headers = { "x-request-id": `id${path.replaceAll("/", ".")}` };
      const direct = await rawRequest(`${url}${path}`, headers);
      expect(shape(direct), path).toEqual(shape(await rawRequest(`${url}${path}?`, headers)));
      expect(direct.status).toBe(200);
      const head = await rawRequest(`${url}${path}`, headers, "HEAD");
      const routedHead = await rawRequest(`${url}${path}?`, headers, "HEAD");
      expect(shape(head), `HEAD ${path}`).toEqual({
        ...shape(routedHead),
        length: direct.headers["content-length"],
      });
    }
    const nodes = await rawRequest(`${url}/v1/nodes`);
    const body = JSON.parse(nodes.body.toString("utf8"));
    expect(body.data.items.map((n: { id: string }) => n.id)).toEqual(["d1", "d2"]);
    expect(body.request_id).toBe(nodes.headers["x-request-id"]);
  });
});
