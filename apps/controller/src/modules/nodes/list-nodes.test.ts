import { gunzipSync } from "node:zlib";
import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { listen } from "../../http/listen.js";
import { bearer, issueKey, keyHeaders, newUser } from "../../testing/accounts.js";
import { type FakeNode, heartbeatOf, settle } from "../../testing/agents.js";
import { rawRequest } from "../../testing/raw-http.js";
import { type Form, forms, type TestApp } from "../../testing/test-app.js";
import { useTestDb } from "../../testing/use-test-db.js";

const silentLog = pino({ level: "silent" });

/** `GET /v1/nodes`: the spec's `{items}` by default; filters, and pages in each form's own fields. */
describe.each(forms)("GET /v1/nodes, form %s", (form: Form) => {
  const db = useTestDb("pglite");
  const size = form === "a" ? "limit" : "per_page";
  const otherSize = form === "a" ? "per_page" : "limit";

  const beat = async (t: TestApp, nodes: readonly FakeNode[], draining: readonly string[] = []) => {
    const link = t.bus.agent();
    for (const n of nodes) link.publishHeartbeat(n.id, heartbeatOf(n, { draining: draining.includes(n.id) }));
    await settle();
    await t.presence.flush();
  };
  const five: FakeNode[] = [
    { id: "c1", country: "SG", region: "ap-southeast", provider: "vultr" },
    { id: "a1", country: "DE", region: "eu-central", provider: "hetzner" },
    { id: "a2", country: "DE", region: "eu-central", provider: "aws" },
    { id: "b1", country: "US", region: "us-east", provider: "aws" },
    { id: "b2", country: "US", region: "us-west", provider: "gcp" },
  ];
  const ids = (res: { body: { data: { items: Array<{ id: string }> } } }) =>
    res.body.data.items.map((n) => n.id);

  it("answers {items} of every node by id without a query; filters narrow it; pages add total, page and the size", async () => {
    const t = await db.freshApp(form);
    await beat(t, five, ["b2"]);

    const all = await t.call("GET", "/v1/nodes");
    expect(all.status).toBe(200);
    expect(Object.keys(all.body.data)).toEqual(["items"]);
    expect(ids(all)).toEqual(["a1", "a2", "b1", "b2", "c1"]);
    expect(all.body.data.items[3]).toMatchObject({ id: "b2", status: "offline" });

    const page = async (query: string) => {
      const res = await t.call("GET", `/v1/nodes?${query}`);
      expect(res.status, query).toBe(200);
      return res;
    };
    const first = await page(`page=1&${size}=2`);
    expect(first.body.data).toEqual({ items: all.body.data.items.slice(0, 2), total: 5, page: 1, [size]: 2 });
    expect(ids(await page(`page=3&${size}=2`))).toEqual(["c1"]);
    const beyond = await page(`page=4&${size}=2`);
    expect(beyond.body.data).toEqual({ items: [], total: 5, page: 4, [size]: 2 });
    // Either field alone pages: the other takes its default (page 1, 100 nodes).
    expect((await page(`${size}=1`)).body.data).toMatchObject({ total: 5, page: 1, [size]: 1 });
    expect((await page("page=1")).body.data).toMatchObject({ total: 5, page: 1, [size]: 100 });
    expect(ids(await page("page=1"))).toEqual(ids(all));

    // Filters without a page answer the spec's shape, only the matching nodes.
    const de = await page("country=de");
    expect(Object.keys(de.body.data)).toEqual(["items"]);
    expect(ids(de)).toEqual(["a1", "a2"]);
    expect(ids(await page("status=offline"))).toEqual(["b2"]);
    expect(ids(await page("status=online&provider=aws"))).toEqual(["a2", "b1"]);
    expect(ids(await page("region=us-east"))).toEqual(["b1"]);
    expect(ids(await page("provider=nobody"))).toEqual([]);
    expect((await page(`country=US&page=2&${size}=1`)).body.data).toMatchObject({
      items: [{ id: "b2" }],
      total: 2,
      page: 2,
      [size]: 1,
    });

    // Unknown query fields are refused, the other form's page size among them.
    const odd = await t.call("GET", `/v1/nodes?${otherSize}=1&x=1`);
    expect(odd.status).toBe(400);
    expect(odd.body.error.code).toBe("unknown_field");
    expect(odd.body.error.details).toEqual([
      { path: `query.${otherSize}`, message: "unknown field" },
      { path: "query.x", message: "unknown field" },
    ]);
  });

  it("takes no credentials, but refuses bad ones and MCP tokens with 401, through the router and the wire", async () => {
    const t = await db.freshApp(form);
    await beat(t, five);
    const u = await newUser(t, "nodes");
    const key = await issueKey(t, u.userId, { scopes: ["read"] });
    const get = (headers: Record<string, string>) => t.call("GET", "/v1/nodes", { headers });
    expect((await get({})).status).toBe(200);
    expect((await get(keyHeaders(form, key.secret))).status).toBe(200);
    expect((await get(u.headers)).status).toBe(200);

    const garbage = form === "a" ? bearer("sk_live_garbage") : { "x-api-key": "not-a-key" };
    const refused = await get(garbage);
    expect(refused.status).toBe(401);
    expect(refused.body.error.code).toBe("unauthorized");
    expect((await get(bearer("garbage"))).status).toBe(401);

    const mcp =
      form === "a"
        ? ((await t.call("POST", "/v1/account/mcp-tokens", { headers: u.headers, body: { name: "m" } })).body
            .data.token as string)
        : "vantage_mcp_0123456789abcdef";
    const byMcp = await get(bearer(mcp));
    expect(byMcp.status).toBe(401);
    expect(byMcp.body.error.code).toBe(form === "a" ? "mcp_token_not_accepted" : "unauthorized");

    // Node's server answers the plain list before the router; a request with credentials goes past it.
    const server = await listen({
      fetch: t.app.fetch,
      host: "127.0.0.1",
      port: 0,
      graceMs: 1000,
      log: silentLog,
    });
    try {
      expect((await rawRequest(`${server.url}/v1/nodes`, {})).status).toBe(200);
      expect((await rawRequest(`${server.url}/v1/nodes`, bearer(mcp))).status).toBe(401);
      expect((await rawRequest(`${server.url}/v1/nodes`, garbage)).status).toBe(401);
    } finally {
      await server.close();
    }
  });

  it("a bad page, page size or filter is a 400 validation_error in the error envelope, naming the field", async () => {
    const t = await db.freshApp(form);
    await beat(t, five);
    for (const [query, path] of [
      [`${size}=0`, `query.${size}`],
      [`${size}=101`, `query.${size}`],
      [`${size}=abc`, `query.${size}`],
      [`${size}=1.5`, `query.${size}`],
      [`page=0&${size}=10`, "query.page"],
      ["page=x", "query.page"],
      ["status=gone", "query.status"],
      ["country=DEU", "query.country"],
      ["region=", "query.region"],
    ] as const) {
      const res = await t.call("GET", `/v1/nodes?${query}`, { headers: { "x-request-id": "bad-query-1" } });
      expect(res.status, query).toBe(400);
      expect(res.body).toEqual({
        error: {
          code: "validation_error",
          message: expect.stringContaining(path),
          details: expect.any(Array),
        },
        request_id: "bad-query-1",
      });
      expect(res.body.error.details[0].path, query).toBe(path);
    }
  });

  it("a large list goes out gzip to clients that accept it, the same JSON with each request's id", async () => {
    const t = await db.freshApp(form);
    const many = Array.from({ length: 200 }, (_, i) => ({ id: `n${String(i).padStart(3, "0")}` }));
    await beat(t, many);
    const get = async (path: string, headers: Record<string, string>) => {
      const res = await t.app.request(path, { headers });
      expect(res.status).toBe(200);
      return { res, bytes: Buffer.from(await res.arrayBuffer()) };
    };

    const plain = await get("/v1/nodes", { "x-request-id": "list-1" });
    expect(plain.res.headers.get("content-encoding")).toBeNull();
    expect(plain.res.headers.get("vary")).toBe("Accept-Encoding");
    const text = plain.bytes.toString("utf8");
    const parsed = JSON.parse(text);
    expect(parsed.data.items).toHaveLength(200);
    expect(parsed.request_id).toBe("list-1");

    const zipped = await get("/v1/nodes", {
      "x-request-id": "list-1",
      "accept-encoding": "gzip, deflate, br",
    });
    expect(zipped.res.headers.get("content-encoding")).toBe("gzip");
    expect(zipped.bytes.length).toBeLessThan(plain.bytes.length / 4);
    expect(gunzipSync(zipped.bytes).toString("utf8")).toBe(text);

    // Another request, another id: the prepared part is reused, the id is its own.
    const id = `r${"x".repeat(127)}`;
    const again = await get("/v1/nodes", { "x-request-id": id, "accept-encoding": "gzip" });
    expect(JSON.parse(gunzipSync(again.bytes).toString("utf8"))).toEqual({ ...parsed, request_id: id });

    // gzip refused (q=0): plain.
    const refused = await get("/v1/nodes", { "x-request-id": "list-1", "accept-encoding": "gzip;q=0, br" });
    expect(refused.res.headers.get("content-encoding")).toBeNull();
    expect(refused.bytes.toString("utf8")).toBe(text);

    // A large filtered answer too; a small page stays plain text.
    const online = await get("/v1/nodes?status=online", { "accept-encoding": "gzip" });
    expect(online.res.headers.get("content-encoding")).toBe("gzip");
    expect(JSON.parse(gunzipSync(online.bytes).toString("utf8")).data.items).toHaveLength(200);
    const small = await get(`/v1/nodes?${size}=10`, { "accept-encoding": "gzip" });
    expect(small.res.headers.get("content-encoding")).toBeNull();
    expect(small.res.headers.get("vary")).toBeNull();
    expect(JSON.parse(small.bytes.toString("utf8")).data).toMatchObject({ total: 200, [size]: 10 });

    // Through Node's own server: a length, not chunks; the same bytes; a HEAD answer without a body.
    const server = await listen({
      fetch: t.app.fetch,
      host: "127.0.0.1",
      port: 0,
      graceMs: 1000,
      log: silentLog,
    });
    try {
      for (const headers of [{}, { "accept-encoding": "gzip" }]) {
        const wire = await rawRequest(`${server.url}/v1/nodes`, headers);
        expect(wire.headers["transfer-encoding"]).toBeUndefined();
        expect(Number(wire.headers["content-length"])).toBe(wire.body.length);
        const json = "accept-encoding" in headers ? gunzipSync(wire.body) : wire.body;
        expect(JSON.parse(json.toString("utf8")).data).toEqual(parsed.data);
      }
      const head = await rawRequest(`${server.url}/v1/nodes`, {}, "HEAD");
      expect(head.status).toBe(200);
      expect(head.body.length).toBe(0);
    } finally {
      await server.close();
    }
  });
});
