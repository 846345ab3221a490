import { createServer, get as httpGet } from "node:http";
import type { AddressInfo } from "node:net";
import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { clientIpOf } from "./context.js";
import { installCore } from "./core.js";
import { ApiError } from "./errors.js";
import { handleError } from "./errors-handler.js";
import { CoreResponse, listen } from "./listen.js";
import { HttpMetrics } from "./metrics.js";
import { createRouter } from "./router.js";

interface AccessLine {
  msg: string;
  status: number;
  method: string;
  path: string;
  request_id: string;
}

/** An app wired as `createApp` wires it (the core, routes, then `onError`), its log captured. */
function observedApp() {
  const lines: AccessLine[] = [];
  const log = pino({ level: "info" }, { write: (line: string) => lines.push(JSON.parse(line)) });
  const metrics = new HttpMetrics(false);
  const app = createRouter();
  installCore(app, { log, metrics, accessLog: true, trustedProxies: [], bodyLimit: 1024 });
  app.post("/things", async (c) => c.json({ got: await c.req.json() }, 201));
  app.get("/missing", () => {
    throw new ApiError("not_found", "no such thing");
  });
  app.get("/page", (c) => c.html("<!doctype html><p>hi</p><script>go()</script>"));
  app.onError(handleError);
  const access = () => lines.filter((l) => l.msg === "request");
  return { app, metrics, access };
}

const json = { "content-type": "application/json" };

/** The app behind Node's own HTTP server on a free loopback port, as `runtime.ts` serves it. */
function serveOnNode(app: { fetch: (request: Request) => Response | Promise<Response> }) {
  return listen({
    fetch: app.fetch,
    host: "127.0.0.1",
    port: 0,
    graceMs: 1000,
    log: pino({ level: "silent" }),
  });
}

describe("core: the status actually sent is the status recorded", () => {
  it.each([
    ["a body over the limit (declared)", 413, { headers: { ...json, "content-length": "5000" }, body: "x" }],
    ["a body over the limit (streamed)", 413, { headers: json, body: `"${"x".repeat(5000)}"` }],
    ["a body that is not JSON", 415, { headers: { "content-type": "text/plain" }, body: "hello" }],
    ["a compressed body", 415, { headers: { ...json, "content-encoding": "gzip" }, body: "{}" }],
    ["malformed JSON", 400, { headers: json, body: "{nope" }],
    ["JSON nested too deep", 400, { headers: json, body: `${"[".repeat(100)}${"]".repeat(100)}` }],
    ["unstorable text", 400, { headers: json, body: '{"a":"\\u0000"}' }],
  ])("%s: access log and metrics say %i", async (_what, status, init) => {
    const { app, metrics, access } = observedApp();
    const res = await app.request("/things", { method: "POST", ...init });
    expect(res.status).toBe(status);
    const body = (await res.json()) as { error: { code: string }; request_id: string };
    expect(body.request_id).toBe(res.headers.get("x-request-id"));
    const [line] = access();
    expect(line).toMatchObject({ status, method: "POST", path: "/things", request_id: body.request_id });
    const text = await metrics.text();
    expect(text).toContain(`vantage_http_requests_total{method="POST",route="/things",status="${status}"} 1`);
    expect(text).not.toContain('status="200"');
  });

  it("a URL carrying %00: 400 in the log and metrics", async () => {
    const { app, metrics, access } = observedApp();
    const res = await app.request("/missing?q=%00");
    expect(res.status).toBe(400);
    expect(access()[0]?.status).toBe(400);
    expect(await metrics.text()).toContain('status="400"');
  });

  it("errors thrown by handlers and successes keep their status too", async () => {
    const { app, metrics, access } = observedApp();
    expect((await app.request("/missing")).status).toBe(404);
    const created = await app.request("/things", { method: "POST", headers: json, body: '{"a":1}' });
    expect(created.status).toBe(201);
    expect(access().map((l) => l.status)).toEqual([404, 201]);
    const text = await metrics.text();
    expect(text).toContain('route="/missing",status="404"} 1');
    expect(text).toContain('route="/things",status="201"} 1');
  });
});

describe("core: security headers", () => {
  it("every response says nosniff; only HTML pages carry a CSP, frame and referrer headers", async () => {
    const { app } = observedApp();
    for (const res of [
      await app.request("/missing"),
      await app.request("/things", { method: "POST", headers: json, body: "{}" }),
      await app.request("/things", { method: "POST", headers: json, body: "{" }),
      await app.request("/nowhere"),
    ]) {
      expect(res.headers.get("x-content-type-options")).toBe("nosniff");
      expect(res.headers.get("content-security-policy")).toBeNull();
    }
    // The first answer teaches the core that /page is a page; the next ones are served from that.
    await app.request("/page");
    const page = await app.request("/page");
    expect(page.headers.get("content-type")).toMatch(/^text\/html/);
    expect(page.headers.get("x-content-type-options")).toBe("nosniff");
    expect(page.headers.get("x-frame-options")).toBe("DENY");
    expect(page.headers.get("referrer-policy")).toBe("no-referrer");
    const csp = page.headers.get("content-security-policy") ?? "";
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("default-src 'none'");
    expect(csp).not.toMatch(/script-src[^;]*'unsafe-(inline|eval)'/);
  });
});

describe("core: under Node's HTTP server, as deployed", () => {
  it("ids, nosniff, page headers, the body guard, metrics by route pattern and the access log", async () => {
    const { app, metrics, access } = observedApp();
    app.get("/items/:id", (c) => c.json({ id: c.req.param("id") }));
    const server = await serveOnNode(app);
    try {
      const item = await fetch(`${server.url}/items/42?x=1`);
      expect(await item.json()).toEqual({ id: "42" });
      expect(item.headers.get("x-request-id")).toMatch(/^req_/);
      expect(item.headers.get("x-content-type-options")).toBe("nosniff");

      const kept = await fetch(`${server.url}/items/7`, { headers: { "x-request-id": "trace-123" } });
      expect(kept.headers.get("x-request-id")).toBe("trace-123");
      const replaced = await fetch(`${server.url}/items/7`, { headers: { "x-request-id": "bad id!" } });
      expect(replaced.headers.get("x-request-id")).toMatch(/^req_/);

      const created = await fetch(`${server.url}/things`, { method: "POST", headers: json, body: '{"a":1}' });
      expect(created.status).toBe(201);
      expect(await created.json()).toEqual({ got: { a: 1 } });
      const refused = await fetch(`${server.url}/things`, { method: "POST", headers: json, body: "{" });
      expect(refused.status).toBe(400);
      expect(refused.headers.get("x-request-id")).toBe(
        ((await refused.json()) as { request_id: string }).request_id,
      );

      for (let i = 0; i < 2; i++) {
        const page = await fetch(`${server.url}/page`);
        expect(page.headers.get("content-security-policy")).toContain("default-src 'none'");
        expect(page.headers.get("x-frame-options")).toBe("DENY");
        expect(page.headers.get("x-content-type-options")).toBe("nosniff");
      }
      const head = await fetch(`${server.url}/items/1`, { method: "HEAD" });
      expect(head.status).toBe(200);
      expect(head.headers.get("x-request-id")).toMatch(/^req_/);
      const nul = await fetch(`${server.url}/items/1?q=%00`);
      expect(nul.status).toBe(400);
      expect(((await nul.json()) as { error: { code: string } }).error.code).toBe("validation_error");
      expect((await fetch(`${server.url}/nowhere`)).status).toBe(404);

      const text = await metrics.text();
      expect(text).toContain('vantage_http_requests_total{method="GET",route="/items/:id",status="200"} 3');
      expect(text).toContain('vantage_http_requests_total{method="HEAD",route="/items/:id",status="200"} 1');
      expect(text).toContain('vantage_http_requests_total{method="POST",route="/things",status="201"} 1');
      expect(text).toContain('vantage_http_requests_total{method="POST",route="/things",status="400"} 1');
      expect(text).toContain('vantage_http_requests_total{method="GET",route="/page",status="200"} 2');
      expect(text).toContain('vantage_http_requests_total{method="GET",route="unmatched",status="404"} 1');
      const lines = access();
      expect(lines).toHaveLength(10);
      expect(lines[0]).toMatchObject({ method: "GET", path: "/items/42", status: 200 });
      expect(lines[1]).toMatchObject({ request_id: "trace-123" });
      expect(lines.map((l) => l.status)).toEqual([200, 200, 200, 201, 400, 200, 200, 200, 400, 404]);
    } finally {
      await server.close();
    }
  });

  it("a trusted proxy's X-Forwarded-For names the client; anyone else's is ignored", async () => {
    const seen: string[] = [];
    const build = (trustedProxies: string[]) => {
      const app = createRouter();
      installCore(app, { log: pino({ level: "silent" }), accessLog: false, trustedProxies });
      app.get("/ip", (c) => {
        seen.push(clientIpOf(c));
        return c.json({});
      });
      return app;
    };
    for (const trusted of [["127.0.0.1"], []]) {
      const server = await serveOnNode(build(trusted));
      try {
        await fetch(`${server.url}/ip`, { headers: { "x-forwarded-for": "198.51.100.7, 127.0.0.1" } });
      } finally {
        await server.close();
      }
    }
    expect(seen).toEqual(["198.51.100.7", "127.0.0.1"]);
  });
});

describe("core: answers whose headers cannot be changed", () => {
  it("a redirect made by Response.redirect still gets its request id and nosniff", async () => {
    const { app } = observedApp();
    app.get("/away", () => Response.redirect("https://example.test/elsewhere", 302));
    const res = await app.request("/away");
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe("https://example.test/elsewhere");
    expect(res.headers.get("x-request-id")).toMatch(/^req_/);
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
  });
});

/** The raw header lines of one GET, as the client received them. */
function rawGet(url: string): Promise<{ status: number; raw: string[] }> {
  return new Promise((resolve, reject) => {
    httpGet(url, (res) => {
      res.resume();
      res.on("end", () => resolve({ status: res.statusCode ?? 0, raw: res.rawHeaders }));
    }).on("error", reject);
  });
}

const linesNamed = (raw: string[], name: string) =>
  raw.filter((_, i) => i % 2 === 0 && raw[i]?.toLowerCase() === name).length;

describe("core: the id and nosniff go out with the answer's own head", () => {
  it("once on every answer, however its head is written, and a route's shared header object is left alone", async () => {
    const shared = Object.freeze({ "Content-Type": "application/json" });
    const app = createRouter();
    installCore(app, { log: pino({ level: "silent" }), accessLog: false, trustedProxies: [] });
    app.get("/shared", (c) => c.body("{}", 200, shared));
    app.get("/empty", () => new Response(null, { status: 204 }));
    app.get("/streamed", () => new Response(new ReadableStream({ start: (s) => s.close() })));
    app.get("/async", async (c) => c.json({ later: true }));
    const server = await serveOnNode(app);
    try {
      const ids = new Set<string>();
      for (const path of ["/shared", "/shared", "/empty", "/streamed", "/async", "/nowhere"]) {
        const { raw } = await rawGet(`${server.url}${path}`);
        expect(linesNamed(raw, "x-request-id"), path).toBe(1);
        expect(linesNamed(raw, "x-content-type-options"), path).toBe(1);
        ids.add(raw[raw.findIndex((h) => h.toLowerCase() === "x-request-id") + 1]!);
      }
      expect(ids.size).toBe(6);
      expect(shared).toEqual({ "Content-Type": "application/json" });
    } finally {
      await server.close();
    }
  });

  it("a response head written by hand: status only, with a reason phrase, as an array, or implicitly", async () => {
    const ways: Record<string, (res: CoreResponse) => void> = {
      "/status": (res) => res.writeHead(204).end(),
      "/reason": (res) => res.writeHead(200, "Fine", { "Content-Type": "text/plain" }).end("ok"),
      "/array": (res) => res.writeHead(200, ["Content-Type", "text/plain"]).end("ok"),
      "/implicit": (res) => res.end("ok"),
    };
    const server = createServer({ ServerResponse: CoreResponse }, (req, res) => {
      res.requestId = `id${req.url?.replace("/", "-")}`;
      ways[req.url ?? ""]?.(res);
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    try {
      const port = (server.address() as AddressInfo).port;
      for (const path of Object.keys(ways)) {
        const { raw } = await rawGet(`http://127.0.0.1:${port}${path}`);
        expect(linesNamed(raw, "x-request-id"), path).toBe(1);
        expect(raw[raw.findIndex((h) => h.toLowerCase() === "x-request-id") + 1], path).toBe(
          `id${path.replace("/", "-")}`,
        );
        expect(linesNamed(raw, "x-content-type-options"), path).toBe(1);
      }
    } finally {
      await new Promise((r) => server.close(r));
    }
  });
});
