import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { startFixtureDns } from "@vantage/lookups/testing/dnsbl-server";
import { pino } from "pino";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { directListener } from "../../http/direct-routes.js";
import { type Listening, listen } from "../../http/listen.js";
import { freshMinute } from "../../testing/fresh-window.js";
import { rawRequest } from "../../testing/raw-http.js";
import { forms, planLimitsEnv, type TestApp } from "../../testing/test-app.js";
import { useTestDb } from "../../testing/use-test-db.js";

/** Fixture datasets: 8.8.8.8 a Tor exit on a hosting ASN (AS15169 in the real IP data), a VPN range. */
const files: Record<string, string> = {
  "tor/tor-exit-nodes.lst": "8.8.8.8\n",
  "hosting-vpn/input/datacenter/ASN.txt": "AS15169 # Google (fixture)\n",
  "hosting-vpn/input/vpn/ASN.txt": "AS64650 # Fixture VPN\n",
  "hosting-vpn/output/datacenter/ipv4.txt": "192.0.2.0/24\n",
  "hosting-vpn/output/vpn/ipv4.txt": "1.1.1.0/24\n",
  "cloud-ranges/fixturecloud/ipv4_merged.txt": "9.9.9.0/24\n",
};

let dataDir: string;
let dns: Awaited<ReturnType<typeof startFixtureDns>>;
beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), "vantage-direct-reputation-"));
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(dataDir, path)), { recursive: true });
    await writeFile(join(dataDir, path), text);
  }
  dns = await startFixtureDns([{ name: "8.8.8.8.bl.test", type: "A", data: "127.0.0.4" }]);
});
afterAll(async () => {
  await dns?.close();
  await rm(dataDir, { recursive: true, force: true });
});

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

/** No DNS check to make: every address is answered from memory, so before the router. */
const offline = (env: Record<string, string> = {}) => ({
  VANTAGE_REPUTATION_DATA_DIR: dataDir,
  VANTAGE_REPUTATION_RDNS: "false",
  ...env,
});

/** `GET /v1/ip/reputation` answered before the router gives the router's answer, refusals included. */
describe.each(forms)("GET /v1/ip/reputation before the router, Form %s", (form) => {
  const db = useTestDb("pglite");

  it("answers as the router does: listed, clean, IPv6, mapped, reserved, encoded addresses", async () => {
    // The cache off: each path's answer is a fresh lookup, `cached: false` on both.
    const t = db.app(form, offline({ VANTAGE_LOOKUP_CACHE_ENTRIES: "0" }));
    expect((await t.call("GET", "/v1/ip/reputation?q=8.8.8.8")).status).toBe(200);
    const caller = { kind: "ip", ip: "127.0.0.1" } as const;
    // The direct path's own answer is there (not only the router's behind it).
    expect(t.modules.lookups.service.reputationNow("8.8.8.8", caller)?.data.types).toEqual([
      "hosting",
      "tor",
    ]);
    const url = await serve(t);
    const id = "direct-reputation-test";
    for (const value of [
      "8.8.8.8",
      "9.9.9.9",
      "1.1.1.1",
      "2001:4860:4860::8888",
      "2001%3A4860%3A4860%3A%3A8888",
      "::ffff:8.8.8.8",
      "64:ff9b::8.8.8.8",
      "10.1.2.3",
      "192.0.2.7",
      "%5B2606:4700:4700::1111%5D",
      "%20%208.8.4.4",
    ]) {
      const path = `/v1/ip/reputation?q=${value}`;
      const wire = await rawRequest(`${url}${path}`, { "x-request-id": id });
      const routed = await t.app.request(path, { headers: { "x-request-id": id } });
      expect(wire.status, value).toBe(200);
      expect(wire.body.toString("utf8"), value).toBe(await routed.text());
      expect(wire.headers["content-type"]).toBe(routed.headers.get("content-type"));
      expect(wire.headers["x-request-id"]).toBe(id);
      expect(wire.headers["x-content-type-options"]).toBe("nosniff");
    }
  });

  it("hands the rest to the router, with the router's answer: fields, bad input, domains, credentials", async () => {
    // The cache off, so that the router's answer to a domain is a fresh lookup on both paths.
    const t = db.app(form, offline({ VANTAGE_LOOKUP_CACHE_ENTRIES: "0" }), {
      hostLookup: async (host) => {
        if (host === "tor-exit.example.test") return [{ address: "8.8.8.8", family: 4 }];
        throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: "ENOTFOUND" });
      },
    });
    await t.call("GET", "/v1/ip/reputation?q=9.9.9.9");
    const url = await serve(t);
    const id = "direct-reputation-refusal";
    const same = async (
      path: string,
      status: number,
      code?: string,
      headers: Record<string, string> = {},
    ) => {
      const wire = await rawRequest(`${url}${path}`, { "x-request-id": id, ...headers });
      const routed = await t.app.request(path, { headers: { "x-request-id": id, ...headers } });
      const body = wire.body.toString("utf8");
      expect(wire.status, path).toBe(status);
      expect(body, path).toBe(await routed.text());
      if (code) expect(JSON.parse(body).error.code, path).toBe(code);
      return wire;
    };
    await same("/v1/ip/reputation?q=8.8.8.8&colour=red", 400, "unknown_field");
    await same("/v1/ip/reputation?colour=red", 400, "unknown_field");
    await same("/v1/ip/reputation", 400, "validation_error");
    await same("/v1/ip/reputation?q=", 400, "validation_error");
    for (const bad of [
      "1.2.3",
      "999.1.1.1",
      "8.8.8.0%2F24",
      "%00",
      "%20",
      "fe80::1%25eth0",
      "x".repeat(300),
    ]) {
      await same(`/v1/ip/reputation?q=${bad}`, 400, "validation_error");
    }
    const byName = await same("/v1/ip/reputation?q=tor-exit.example.test", 200);
    expect(JSON.parse(byName.body.toString("utf8")).data).toMatchObject({ domain: "tor-exit.example.test" });
    await same("/v1/ip/reputation?q=nowhere.example.test", 404, "not_found");
    const badKey = await same("/v1/ip/reputation?q=8.8.8.8", 401, "unauthorized", {
      authorization: "Bearer not-a-key",
    });
    expect(badKey.headers["www-authenticate"]).toMatch(/^Bearer/);
  });

  it("takes the caller's reputation limit; over it the router's 429", async () => {
    const t = db.app(
      form,
      offline({ VANTAGE_PLAN_LIMITS: planLimitsEnv({ anonymous: { reputation_per_minute: 2 } }) }),
    );
    const url = await serve(t);
    await freshMinute(5_000);
    const path = `${url}/v1/ip/reputation?q=9.9.9.9`;
    // The first request loads the data and reads the shared count (the router); the next one is direct.
    const seen: { remaining: unknown; cached: boolean }[] = [];
    for (let i = 0; i < 2; i++) {
      const res = await rawRequest(path);
      expect(res.status).toBe(200);
      expect(res.headers["ratelimit-limit"]).toBe("2");
      const cached = JSON.parse(res.body.toString("utf8")).data.cached as boolean;
      seen.push({ remaining: res.headers["ratelimit-remaining"], cached });
    }
    expect(seen).toEqual([
      { remaining: "1", cached: false },
      { remaining: "0", cached: true },
    ]);
    const over = await rawRequest(path);
    expect(over.status).toBe(429);
    expect(JSON.parse(over.body.toString("utf8")).error.code).toBe("rate_limited");
    expect(Number(over.headers["retry-after"])).toBeGreaterThan(0);
  });

  it("with DNS checks on, the router looks up and a kept answer is then served directly", async () => {
    const t = db.app(form, {
      VANTAGE_REPUTATION_DATA_DIR: dataDir,
      VANTAGE_REPUTATION_RDNS: "false",
      VANTAGE_DNSBL_ZONES: "bl.test=spamhaus",
      VANTAGE_DNSBL_RESOLVER: `127.0.0.1:${dns.port}`,
    });
    await t.call("GET", "/v1/ip/reputation?q=9.9.9.9");
    const caller = { kind: "ip", ip: "127.0.0.1" } as const;
    // Nothing kept for 8.8.8.8 yet: a DNSBL must be asked, which only the router's lookup waits for.
    expect(t.modules.lookups.service.reputationNow("8.8.8.8", caller)).toBeUndefined();
    const url = await serve(t);
    const first = await rawRequest(`${url}/v1/ip/reputation?q=8.8.8.8`);
    const again = await rawRequest(`${url}/v1/ip/reputation?q=8.8.8.8`);
    const a = JSON.parse(first.body.toString("utf8")).data;
    const b = JSON.parse(again.body.toString("utf8")).data;
    expect(a.cached).toBe(false);
    expect(a.signals_checked).toContain("dnsbl:bl.test");
    expect(b).toEqual({ ...a, cached: true });
    expect(t.modules.lookups.service.reputationNow("8.8.8.8", caller)?.cached).toBe(true);
    // The router's answer from the same cache is the same.
    const routed = await t.call("GET", "/v1/ip/reputation?q=8.8.8.8");
    expect(routed.body.data).toEqual(b);
  });
});
