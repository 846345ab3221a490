import { describe, expect, it } from "vitest";
import { forms } from "../../testing/test-app.js";
import { useTestDb } from "../../testing/use-test-db.js";

const TOKEN = "metrics-token-0123456789abcdef";

/** `/metrics` on the API port: public by default, behind a bearer token, or gone to its own server. */
describe.each(forms)("GET /metrics on the API port, form %s", (form) => {
  const db = useTestDb("pglite");

  it("by default: public, and not in the OpenAPI document", async () => {
    const t = db.app(form);
    const res = await t.call("GET", "/metrics");
    expect(res.status).toBe(200);
    expect(res.text).toContain("vantage_http_requests_total");
    expect(Object.keys((t.openapi() as { paths: object }).paths)).not.toContain("/metrics");
  });

  it("VANTAGE_METRICS_TOKEN: required, accepted, refused", async () => {
    const t = db.app(form, { VANTAGE_METRICS_TOKEN: TOKEN });
    await t.call("GET", "/v1/nodes");

    const none = await t.call("GET", "/metrics");
    expect(none.status).toBe(401);
    expect(none.headers.get("www-authenticate")).toBe("Bearer");
    expect(none.body.error.code).toBe("unauthorized");
    expect(none.body.request_id).toBe(none.headers.get("x-request-id"));
    expect(none.text).not.toContain("vantage_");

    for (const authorization of [
      `Bearer ${TOKEN}x`,
      `Bearer ${TOKEN.slice(0, -1)}`,
      "Bearer x",
      `Basic ${TOKEN}`,
      TOKEN,
      `Bearer ${TOKEN} extra`,
    ]) {
      const refused = await t.call("GET", "/metrics", { headers: { authorization } });
      expect(refused.status, authorization).toBe(401);
      expect(refused.headers.get("www-authenticate"), authorization).toMatch(/^Bearer\b/);
      expect(refused.body.error.code).toBe("unauthorized");
      expect(refused.text).not.toContain("vantage_http");
    }
    // An API key's header is no way in.
    expect((await t.call("GET", "/metrics", { headers: { "x-api-key": TOKEN } })).status).toBe(401);

    for (const authorization of [`Bearer ${TOKEN}`, `bearer ${TOKEN}`, `Bearer  ${TOKEN}`]) {
      const ok = await t.call("GET", "/metrics", { headers: { authorization } });
      expect(ok.status, authorization).toBe(200);
      expect(ok.headers.get("content-type")).toContain("text/plain");
      expect(ok.text).toMatch(
        /vantage_http_requests_total\{method="GET",route="\/metrics",status="401"\} \d+/,
      );
    }
    expect(Object.keys((t.openapi() as { paths: object }).paths)).not.toContain("/metrics");
  });

  it("VANTAGE_METRICS_LISTEN: the API port answers 404 for /metrics", async () => {
    const t = db.app(form, { VANTAGE_METRICS_LISTEN: "127.0.0.1:9464", VANTAGE_METRICS_TOKEN: TOKEN });
    for (const headers of [{}, { authorization: `Bearer ${TOKEN}` }]) {
      const res = await t.call("GET", "/metrics", { headers });
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe("not_found");
    }
    expect((await t.call("GET", "/healthz")).status).toBe(200);
    expect(Object.keys((t.openapi() as { paths: object }).paths)).not.toContain("/metrics");
  });
});
