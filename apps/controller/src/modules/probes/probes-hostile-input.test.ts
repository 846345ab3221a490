import { describe, expect, it } from "vitest";
import { MAX_ERROR_DETAILS } from "../../http/errors.js";
import { forms } from "../../testing/test-app.js";
import { useTestDb } from "../../testing/use-test-db.js";

/**
 * Counts and sizes are checked before elements: a body over a bound gets the bound's detail first, at its
 * own path; the body's other problems follow as the validator words them, judged on a copy cut to the
 * bounds, so no element past a bound is ever looked at (each would be one issue more).
 */
describe.each(forms)("probe bodies over a count or size, Form %s", (form) => {
  const db = useTestDb("pglite");
  const http = (extra: Record<string, unknown>, url = "https://example.com/") =>
    form === "a" ? { target: url, params: extra } : { url, ...extra };
  const param = (f: string) => (form === "a" ? `body.params.${f}` : `body.${f}`);
  const nodesField = form === "a" ? "node_ids" : "nodes";

  it("9,000 headers, every name invalid: the count's detail first, nothing past the bound", async () => {
    const t = db.app(form);
    const headers = Object.fromEntries(Array.from({ length: 9_000 }, (_, i) => [`bad name ${i}`, "v\n"]));
    const res = await t.call("POST", "/v1/probe/http", { body: http({ headers }) });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("validation_error");
    const details = res.body.error.details as { path: string; message: string }[];
    expect(details[0]).toEqual({ path: param("headers"), message: "at most 20 headers" });
    expect(details.length).toBeLessThanOrEqual(MAX_ERROR_DETAILS + 1);
    expect(details.some((d) => d.path.includes("bad name 20") || d.path.includes("bad name 8999"))).toBe(
      false,
    );
    // At the bound, each header is checked as before.
    const twenty = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`bad name ${i}`, "v"]));
    const within = await t.call("POST", "/v1/probe/http", { body: http({ headers: twenty }) });
    expect(within.status).toBe(400);
    expect(within.body.error.details[0].path).toBe(`${param("headers")}.bad name 0`);
  });

  it("too many node ids, none valid: the array's bound first, nothing past it", async () => {
    const t = db.app(form);
    const body = { ...http({}), [nodesField]: Array.from({ length: 5_000 }, () => "NOT A NODE") };
    const res = await t.call("POST", "/v1/probe/http", { body });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("validation_error");
    const details = res.body.error.details as { path: string; message: string }[];
    expect(details[0]).toEqual({
      path: `body.${nodesField}`,
      message: "Too big: expected array to have <=50 items",
    });
    expect(details.length).toBeLessThanOrEqual(MAX_ERROR_DETAILS + 1);
    expect(details.some((d) => /\.(5\d|[1-9]\d{2,})$/.test(d.path))).toBe(false);
  });

  it("a URL far over its length: the length's detail, as the validator words it", async () => {
    const t = db.app(form);
    const res = await t.call("POST", "/v1/probe/http", {
      body: http({}, `https://example.com/${"\n".repeat(500_000)}`),
    });
    expect(res.status).toBe(400);
    const path = form === "a" ? "body.target" : "body.url";
    expect(res.body.error.details).toEqual([
      { path, message: "Too big: expected string to have <=2048 characters" },
    ]);
  });

  it("refused probe requests count against the address: past the limit a good body gets 429", async () => {
    const t = db.app(form, { VANTAGE_REFUSED_LIMIT_IP: "2" });
    const tooMany = Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`X-H${i}`, "v"]));
    expect((await t.call("POST", "/v1/probe/http", { body: http({ headers: tooMany }) })).status).toBe(400);
    expect((await t.call("POST", "/v1/probe/http", { body: { nope: 1 } })).status).toBe(400);
    const res = await t.call("POST", "/v1/probe/http", { body: http({}) });
    expect(res.status).toBe(429);
    expect(res.body.error.code).toBe("rate_limited");
    expect(res.headers.get("retry-after")).toMatch(/^\d+$/);
    expect((await t.call("GET", "/healthz")).status).toBe(200);
  });
});
