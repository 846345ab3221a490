import { pino } from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { directListener } from "../../http/direct-routes.js";
import { type Listening, listen } from "../../http/listen.js";
import { freshMinute } from "../../testing/fresh-window.js";
import { rawRequest } from "../../testing/raw-http.js";
import { forms, planLimitsEnv, type TestApp } from "../../testing/test-app.js";
import { useTestDb } from "../../testing/use-test-db.js";

const servers: Listening[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});

/** The app behind Node's own server with its direct routes, as runtime.ts serves it. */
async function serve(t: TestApp): Promise<string> {
  const server = await listen({
    fetch: t.app.fetch,
    direct: directListener(t.app),
    host: "127.0.0.1",
    port: 0,
    graceMs: 1000,
    log: pino({ level: "silent" }),
  });
  servers.push(server);
  return server.url;
}

/** `GET /v1/info/ip` answered before the router gives the router's answer, limits and refusals included. */
describe.each(forms)("GET /v1/info/ip before the router, Form %s", (form) => {
  const db = useTestDb("pglite");
  const name = form === "a" ? "q" : "ip";

  it("answers as the router does: public, IPv6, mapped, reserved, encoded addresses", async () => {
    const t = db.app(form);
    // The router loads the IP data on first use; the direct route answers once it is in memory.
    expect((await t.call("GET", `/v1/info/ip?${name}=8.8.8.8`)).status).toBe(200);
    const url = await serve(t);
    const id = "direct-ip-test";
    for (const value of [
      "8.8.8.8",
      "1.1.1.1",
      "2001:4860:4860::8888",
      "2001%3A4860%3A4860%3A%3A8888",
      "::ffff:8.8.8.8",
      "64:ff9b::8.8.8.8",
      "10.1.2.3",
      "%5B2606:4700:4700::1111%5D",
      "%20%208.8.4.4",
    ]) {
      const path = `/v1/info/ip?${name}=${value}`;
      const wire = await rawRequest(`${url}${path}`, { "x-request-id": id });
      const routed = await t.app.request(path, { headers: { "x-request-id": id } });
      expect(wire.status, value).toBe(200);
      expect(wire.body.toString("utf8"), value).toBe(await routed.text());
      expect(wire.headers["content-type"]).toBe(routed.headers.get("content-type"));
      expect(wire.headers["x-request-id"]).toBe(id);
      expect(wire.headers["x-content-type-options"]).toBe("nosniff");
    }
  });

  it("hands the rest to the router: unknown fields, bad addresses, credentials", async () => {
    const t = db.app(form);
    await t.call("GET", `/v1/info/ip?${name}=8.8.8.8`);
    const url = await serve(t);
    const ask = async (path: string, headers: Record<string, string> = {}) => {
      const res = await rawRequest(`${url}${path}`, headers);
      return { status: res.status, body: JSON.parse(res.body.toString("utf8")) };
    };
    const unknown = await ask(`/v1/info/ip?${name}=8.8.8.8&colour=red`);
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.code).toBe("unknown_field");
    const other = await ask("/v1/info/ip?colour=red");
    expect(other.status).toBe(400);
    expect(other.body.error.code).toBe("unknown_field");
    for (const bad of ["999.1.1.1", "8.8.8.0%2F24", "example.com", "%00", "x".repeat(70)]) {
      const res = await ask(`/v1/info/ip?${name}=${bad}`);
      expect(res.status, bad).toBe(400);
      expect(res.body.error.code, bad).toBe("validation_error");
    }
    const badKey = await ask(`/v1/info/ip?${name}=8.8.8.8`, { authorization: "Bearer not-a-key" });
    expect(badKey.status).toBe(401);
  });

  it("takes the caller's lookup limit; over it the router's 429", async () => {
    const t = db.app(form, { VANTAGE_PLAN_LIMITS: planLimitsEnv({ anonymous: { lookups_per_minute: 2 } }) });
    const url = await serve(t);
    await freshMinute(5_000);
    const path = `${url}/v1/info/ip?${name}=8.8.8.8`;
    // The first request loads the data and reads the shared count (the router); the next one is direct.
    const counts: (string | undefined)[] = [];
    for (let i = 0; i < 2; i++) {
      const res = await rawRequest(path);
      expect(res.status).toBe(200);
      expect(res.headers["ratelimit-limit"]).toBe("2");
      counts.push(res.headers["ratelimit-remaining"] as string | undefined);
    }
    expect(counts).toEqual(["1", "0"]);
    const over = await rawRequest(path);
    expect(over.status).toBe(429);
    expect(JSON.parse(over.body.toString("utf8")).error.code).toBe("rate_limited");
    expect(Number(over.headers["retry-after"])).toBeGreaterThan(0);
  });
});
