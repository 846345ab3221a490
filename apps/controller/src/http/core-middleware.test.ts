import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { coreMiddleware } from "./core-middleware.js";
import { ApiError } from "./errors.js";
import { handleError } from "./errors-handler.js";
import { HttpMetrics } from "./metrics.js";
import { createRouter } from "./router.js";

interface AccessLine {
  msg: string;
  status: number;
  method: string;
  path: string;
  request_id: string;
}

/** An app wired as `createApp` wires it (core middleware, routes, then `onError`), its log captured. */
function observedApp() {
  const lines: AccessLine[] = [];
  const log = pino({ level: "info" }, { write: (line: string) => lines.push(JSON.parse(line)) });
  const metrics = new HttpMetrics(false);
  const app = createRouter();
  app.use("*", coreMiddleware({ log, metrics, accessLog: true, trustedProxies: [], bodyLimit: 1024 }));
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

describe("core middleware: the status actually sent is the status recorded", () => {
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

describe("core middleware: security headers", () => {
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
    // The first answer teaches the middleware that /page is a page; the next ones are served from that.
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
