import { gunzipSync } from "node:zlib";
import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { listen } from "../../http/listen.js";
import { type FakeNode, heartbeatOf, settle } from "../../testing/agents.js";
import { rawRequest } from "../../testing/raw-http.js";
import { type Form, forms, type TestApp } from "../../testing/test-app.js";
import { useTestDb } from "../../testing/use-test-db.js";

const silentLog = pino({ level: "silent" });

/** `GET /v1/nodes` tags its data: `If-None-Match` with the current tag is a 304 without a body. */
describe.each(forms)("GET /v1/nodes ETag, form %s", (form: Form) => {
  const db = useTestDb("pglite");
  const size = form === "a" ? "limit" : "per_page";

  const beat = async (t: TestApp, nodes: readonly FakeNode[], draining: readonly string[] = []) => {
    const link = t.bus.agent();
    for (const n of nodes) link.publishHeartbeat(n.id, heartbeatOf(n, { draining: draining.includes(n.id) }));
    await settle();
    await t.presence.flush();
  };
  const two: FakeNode[] = [
    { id: "a1", country: "DE", region: "eu-central", provider: "hetzner" },
    { id: "b1", country: "US", region: "us-east", provider: "aws" },
  ];

  it("a small list: 304 for the current tag, 200 with a new tag once a node changes, filters and pages too", async () => {
    const t = await db.freshApp(form);
    await beat(t, two);
    const first = await t.call("GET", "/v1/nodes");
    expect(first.status).toBe(200);
    const tag = first.headers.get("etag");
    expect(tag).toMatch(/^W\/"[A-Za-z0-9_-]+"$/);

    const same = await t.call("GET", "/v1/nodes", { headers: { "if-none-match": tag! } });
    expect(same.status).toBe(304);
    expect(same.text).toBe("");
    expect(same.headers.get("etag")).toBe(tag);
    // Weak comparison, lists and `*`.
    const strong = tag!.slice(2);
    expect((await t.call("GET", "/v1/nodes", { headers: { "if-none-match": strong } })).status).toBe(304);
    expect(
      (await t.call("GET", "/v1/nodes", { headers: { "if-none-match": `W/"other", ${tag}` } })).status,
    ).toBe(304);
    expect((await t.call("GET", "/v1/nodes", { headers: { "if-none-match": "*" } })).status).toBe(304);
    const stale = await t.call("GET", "/v1/nodes", { headers: { "if-none-match": 'W/"other"' } });
    expect(stale.status).toBe(200);
    expect(stale.body.data).toEqual(first.body.data);

    // A node drains: the data changed, so the old tag gets the new list and a new tag.
    await beat(t, two.slice(0, 1), ["a1"]);
    const changed = await t.call("GET", "/v1/nodes", { headers: { "if-none-match": tag! } });
    expect(changed.status).toBe(200);
    expect(changed.body.data.items[0]).toMatchObject({ id: "a1", status: "offline" });
    expect(changed.headers.get("etag")).not.toBe(tag);

    // A filtered page is tagged by its own data.
    const path = `/v1/nodes?country=us&${size}=1`;
    const page = await t.call("GET", path);
    expect(page.status).toBe(200);
    expect(page.body.data).toMatchObject({ total: 1, [size]: 1 });
    const pageTag = page.headers.get("etag")!;
    expect(pageTag).not.toBe(changed.headers.get("etag"));
    expect((await t.call("GET", path, { headers: { "if-none-match": pageTag } })).status).toBe(304);
    // The query is still checked before any tag: unknown fields are refused.
    const unknown = await t.call("GET", "/v1/nodes?colour=red", { headers: { "if-none-match": "*" } });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.code).toBe("unknown_field");
  });

  it("a large list: plain and gzip share the tag; 304 keeps Vary; over the wire too", async () => {
    const t = await db.freshApp(form);
    const many = Array.from({ length: 200 }, (_, i) => ({ id: `n${String(i).padStart(3, "0")}` }));
    await beat(t, many);
    const plain = await t.app.request("/v1/nodes");
    const tag = plain.headers.get("etag")!;
    expect(tag).toMatch(/^W\//);
    const zipped = await t.app.request("/v1/nodes", { headers: { "accept-encoding": "gzip" } });
    expect(zipped.headers.get("content-encoding")).toBe("gzip");
    expect(zipped.headers.get("etag")).toBe(tag);
    const json = JSON.parse(gunzipSync(Buffer.from(await zipped.arrayBuffer())).toString("utf8"));
    expect(json.data.items).toHaveLength(200);

    const cached = await t.app.request("/v1/nodes", {
      headers: { "accept-encoding": "gzip", "if-none-match": tag },
    });
    expect(cached.status).toBe(304);
    expect(cached.headers.get("vary")).toBe("Accept-Encoding");
    expect(cached.headers.get("content-encoding")).toBeNull();
    expect((await cached.arrayBuffer()).byteLength).toBe(0);

    // A new node: a new tag, the old one gets the whole new list.
    await beat(t, [{ id: "zz" }]);
    const after = await t.app.request("/v1/nodes", {
      headers: { "accept-encoding": "gzip", "if-none-match": tag },
    });
    expect(after.status).toBe(200);
    expect(after.headers.get("etag")).not.toBe(tag);
    const items = JSON.parse(gunzipSync(Buffer.from(await after.arrayBuffer())).toString("utf8")).data.items;
    expect(items).toHaveLength(201);

    const server = await listen({
      fetch: t.app.fetch,
      host: "127.0.0.1",
      port: 0,
      graceMs: 1000,
      log: silentLog,
    });
    try {
      const current = after.headers.get("etag")!;
      for (const headers of [{}, { "accept-encoding": "gzip" }]) {
        const wire = await rawRequest(`${server.url}/v1/nodes`, headers);
        expect(wire.status).toBe(200);
        expect(wire.headers.etag).toBe(current);
        const not = await rawRequest(`${server.url}/v1/nodes`, { ...headers, "if-none-match": current });
        expect(not.status).toBe(304);
        expect(not.body.length).toBe(0);
      }
    } finally {
      await server.close();
    }
  });

  it("the small list answered before the router carries the tag; a conditional request gets its 304", async () => {
    const t = await db.freshApp(form);
    await beat(t, two);
    await t.call("GET", "/v1/nodes"); // the directory's nodes are loaded and at hand
    const server = await listen({
      fetch: t.app.fetch,
      host: "127.0.0.1",
      port: 0,
      graceMs: 1000,
      log: silentLog,
    });
    try {
      const wire = await rawRequest(`${server.url}/v1/nodes`);
      expect(wire.status).toBe(200);
      const tag = wire.headers.etag as string;
      expect(tag).toMatch(/^W\//);
      expect(tag).toBe((await t.call("GET", "/v1/nodes")).headers.get("etag"));
      const not = await rawRequest(`${server.url}/v1/nodes`, { "if-none-match": tag });
      expect(not.status).toBe(304);
      expect(not.body.length).toBe(0);
    } finally {
      await server.close();
    }
  });
});
