import { pino } from "pino";
import { afterEach, describe, expect, it } from "vitest";
import type { Listening } from "./listen.js";
import { HttpMetrics } from "./metrics.js";
import { isLoopbackHost, listenMetrics, publicMetricsWarning } from "./metrics-endpoint.js";

const TOKEN = "metrics-token-0123456789abcdef";
const log = pino({ level: "silent" });

describe("the separate metrics server", () => {
  let server: Listening | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  async function start(token: string | undefined) {
    const metrics = new HttpMetrics(false);
    metrics.observe("GET", "/v1/nodes", 200, 0.002);
    server = await listenMetrics({ metrics, token, host: "127.0.0.1", port: 0, graceMs: 1000, log });
    return server.url;
  }

  it("serves /metrics and nothing else, in the error envelope", async () => {
    const url = await start(undefined);
    const res = await fetch(`${url}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/plain");
    expect(await res.text()).toContain(
      'vantage_http_requests_total{method="GET",route="/v1/nodes",status="200"} 1',
    );

    for (const path of ["/", "/healthz", "/v1/nodes", "/metrics/", "/docs"]) {
      const other = await fetch(`${url}${path}`);
      expect(other.status, path).toBe(404);
      const body = (await other.json()) as { error: { code: string }; request_id: string };
      expect(body.error.code).toBe("not_found");
      expect(other.headers.get("x-request-id")).toBe(body.request_id);
    }
    const post = await fetch(`${url}/metrics`, { method: "POST" });
    expect(post.status).toBe(405);
    expect(post.headers.get("allow")).toBe("GET, HEAD");
  });

  it("with a token: required, accepted, refused", async () => {
    const url = await start(TOKEN);
    const none = await fetch(`${url}/metrics`);
    expect(none.status).toBe(401);
    expect(none.headers.get("www-authenticate")).toBe("Bearer");
    expect(((await none.json()) as { error: { code: string } }).error.code).toBe("unauthorized");

    const wrong = await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}x` } });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get("www-authenticate")).toBe('Bearer error="invalid_token"');

    const ok = await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(ok.status).toBe(200);
    expect(await ok.text()).toContain("vantage_http_requests_total");
  });
});

describe("loopback addresses", () => {
  it.each([
    "127.0.0.1",
    "127.1.2.3",
    "localhost",
    "LOCALHOST",
    "::1",
    "[::1]",
    "0:0:0:0:0:0:0:1",
    "::ffff:127.0.0.1",
  ])("%s is loopback", (host) => expect(isLoopbackHost(host)).toBe(true));
  it.each([
    "0.0.0.0",
    "::",
    "10.0.0.5",
    "192.168.1.1",
    "2001:db8::1",
    "::ffff:10.0.0.1",
    "example.com",
    // Not assumed: what a subdomain of localhost resolves to depends on the machine.
    "api.localhost",
    "128.0.0.1",
    "::2",
  ])("%s is not", (host) => expect(isLoopbackHost(host)).toBe(false));

  it("the start-up warning: a non-loopback HOST with neither metrics variable", () => {
    expect(publicMetricsWarning({ host: "0.0.0.0", token: undefined, listen: undefined })).toMatch(
      /^\/metrics is public on the API port, which binds 0\.0\.0\.0 .*VANTAGE_METRICS_TOKEN or VANTAGE_METRICS_LISTEN/,
    );
    expect(publicMetricsWarning({ host: "0.0.0.0", token: TOKEN, listen: undefined })).toBeUndefined();
    expect(
      publicMetricsWarning({ host: "0.0.0.0", token: undefined, listen: { host: "127.0.0.1", port: 9464 } }),
    ).toBeUndefined();
    expect(publicMetricsWarning({ host: "127.0.0.1", token: undefined, listen: undefined })).toBeUndefined();
  });
});
