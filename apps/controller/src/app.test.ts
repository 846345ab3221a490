import { createRoute, z } from "@hono/zod-openapi";
import { freePort } from "@vantage/testing";
import { beforeAll, describe, expect, it } from "vitest";
import { connectDb } from "./db/connect.js";
import { requestIdOf } from "./http/context.js";
import { dbKinds, forms, makeTestApp, openTestDb, type TestApp } from "./testing/test-app.js";
import { useTestDb } from "./testing/use-test-db.js";

/**
 * The error paths every route shares, through the real middleware stack, in both forms and on both
 * databases. A small echo route with a strict body schema stands in for "any route with a body".
 */
function addEchoRoute(t: TestApp) {
  const route = createRoute({
    method: "post",
    path: "/v1/__echo",
    request: {
      body: {
        required: true,
        content: {
          "application/json": {
            schema: z.strictObject({
              name: z.string().min(1).max(10),
              tags: z.array(z.string()).max(2).optional(),
            }),
          },
        },
      },
    },
    responses: {
      200: {
        description: "echo",
        content: {
          "application/json": {
            schema: z.object({
              data: z.object({ name: z.string(), tags: z.array(z.string()).optional() }),
              request_id: z.string(),
            }),
          },
        },
      },
    },
  });
  t.app.openapi(route, (c) => c.json({ data: c.req.valid("json"), request_id: requestIdOf(c) }, 200));
  t.app.get("/v1/__boom", () => {
    throw new Error("secret internal detail");
  });
}

describe.each(dbKinds)("controller core on %s", (kind) => {
  const db = useTestDb(kind);

  describe.each(forms)("form %s", (form) => {
    let t: TestApp;
    beforeAll(() => {
      t = db.app(form, { VANTAGE_BODY_LIMIT_BYTES: "2048" });
      addEchoRoute(t);
    });

    it("answers GET /v1/nodes with the success envelope and a request id", async () => {
      const res = await t.call("GET", "/v1/nodes");
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual({ items: [] });
      expect(res.body.request_id).toMatch(/^req_/);
      expect(res.headers.get("x-request-id")).toBe(res.body.request_id);
    });

    it("keeps a well-formed incoming X-Request-Id and replaces a malformed one", async () => {
      const kept = await t.call("GET", "/v1/nodes", { headers: { "x-request-id": "abc-123.DEF" } });
      expect(kept.headers.get("x-request-id")).toBe("abc-123.DEF");
      expect(kept.body.request_id).toBe("abc-123.DEF");
      const replaced = await t.call("GET", "/v1/nodes", {
        headers: { "x-request-id": "bad id\twith spaces" },
      });
      expect(replaced.headers.get("x-request-id")).toMatch(/^req_/);
    });

    it("unknown route → 404 not_found envelope", async () => {
      const res = await t.call("GET", "/v1/nope");
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe("not_found");
      expect(res.body.request_id).toBe(res.headers.get("x-request-id"));
    });

    it("wrong method → 405 with Allow", async () => {
      const res = await t.call("DELETE", "/v1/nodes");
      expect(res.status).toBe(405);
      expect(res.body.error.code).toBe("method_not_allowed");
      expect(res.headers.get("allow")).toContain("GET");
    });

    it("paths are exact: a trailing slash is a 404 that names the path meant, not a 405", async () => {
      const res = await t.call("GET", "/v1/nodes/");
      expect(res.status).toBe(404);
      expect(res.headers.get("allow")).toBeNull();
      expect(res.body.error.message).toBe("no route for GET /v1/nodes/ (did you mean /v1/nodes?)");
      const post = await t.call("POST", "/v1/__echo/", { body: { name: "x" } });
      expect(post.status).toBe(404);
    });

    it("a compressed body → 415 naming the encoding; identity is fine", async () => {
      const res = await t.call("POST", "/v1/__echo", {
        body: { name: "ok" },
        headers: { "content-encoding": "gzip" },
      });
      expect(res.status).toBe(415);
      expect(res.body.error.code).toBe("unsupported_media_type");
      expect(res.body.error.message).toContain('"gzip"');
      const plain = await t.call("POST", "/v1/__echo", {
        body: { name: "ok" },
        headers: { "content-encoding": "identity" },
      });
      expect(plain.status).toBe(200);
    });

    it("text PostgreSQL cannot store (U+0000, an unpaired surrogate) → 400 naming the field, on any route", async () => {
      for (const [body, path] of [
        [{ name: "a\u0000b" }, "body.name"],
        [{ name: "ok", tags: ["x", "\ud800"] }, "body.tags.1"],
        [{ name: "ok", "k\u0000": 1 }, "body.k\u0000"],
      ] as const) {
        const res = await t.call("POST", "/v1/__echo", { body });
        expect(res.status, JSON.stringify(body)).toBe(400);
        expect(res.body.error.code).toBe("validation_error");
        expect(res.body.error.details[0].path).toBe(path);
      }
      // Paired surrogates (an emoji) and other control characters are ordinary text.
      const fine = await t.call("POST", "/v1/__echo", { body: { name: "\u{1f600}\t" } });
      expect(fine.status).toBe(200);
      for (const url of ["/v1/probe/tasks/task_%00", "/v1/nodes?x=%00"]) {
        const res = await t.call("GET", url);
        expect(res.status, url).toBe(400);
        expect(res.body.error.code).toBe("validation_error");
      }
    });

    it("JSON media types: parameters as `; name=value` pass; anything else → 415 unsupported_media_type", async () => {
      const body = JSON.stringify({ name: "ok" });
      for (const type of ["application/json; charset=utf-8", "application/vnd.test+json"]) {
        const res = await t.call("POST", "/v1/__echo", { body, headers: { "content-type": type } });
        expect(res.status, type).toBe(200);
      }
      for (const type of ["application/json;", "application/json ; charset=utf-8", "application/json;;"]) {
        const res = await t.call("POST", "/v1/__echo", { body, headers: { "content-type": type } });
        expect(res.status, type).toBe(415);
        expect(res.body.error.code).toBe("unsupported_media_type");
      }
    });

    it("malformed JSON → 400 malformed_json", async () => {
      const res = await t.call("POST", "/v1/__echo", {
        body: '{"name": ',
        headers: { "content-type": "application/json" },
      });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe("malformed_json");
    });

    it("a body that is not JSON → 415", async () => {
      const res = await t.call("POST", "/v1/__echo", {
        body: "name=x",
        headers: { "content-type": "text/plain" },
      });
      expect(res.status).toBe(415);
      expect(res.body.error.code).toBe("unsupported_media_type");
    });

    it("a body over the limit → 413, declared or streamed", async () => {
      const big = JSON.stringify({ name: "x".repeat(5000) });
      const res = await t.call("POST", "/v1/__echo", { body: big });
      expect(res.status).toBe(413);
      expect(res.body.error.code).toBe("payload_too_large");
      const stream = new ReadableStream({
        start(controller) {
          controller.enqueue(new TextEncoder().encode(big));
          controller.close();
        },
      });
      const raw = await t.app.request("/v1/__echo", {
        method: "POST",
        headers: { "content-type": "application/json", "transfer-encoding": "chunked" },
        body: stream,
        duplex: "half",
      } as RequestInit);
      expect(raw.status).toBe(413);
    });

    it("validation failure → 400 validation_error with field paths", async () => {
      const res = await t.call("POST", "/v1/__echo", { body: { name: "", tags: ["a", "b", "c"] } });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe("validation_error");
      const paths = res.body.error.details.map((d: { path: string }) => d.path);
      expect(paths).toEqual(expect.arrayContaining(["body.name", "body.tags"]));
    });

    it("an unknown field → 400 unknown_field naming it", async () => {
      const res = await t.call("POST", "/v1/__echo", { body: { name: "ok", colour: "red" } });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe("unknown_field");
      expect(res.body.error.details).toEqual([{ path: "body.colour", message: "unknown field" }]);
    });

    it("a valid body passes through", async () => {
      const res = await t.call("POST", "/v1/__echo", { body: { name: "ok" } });
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual({ name: "ok" });
    });

    it("an unexpected error → 500 internal_error without the stack or message", async () => {
      const res = await t.call("GET", "/v1/__boom");
      expect(res.status).toBe(500);
      expect(res.body.error.code).toBe("internal_error");
      expect(res.text).not.toContain("secret internal detail");
      expect(res.text).not.toContain("at ");
    });

    it("readiness reports the database and transport; liveness answers", async () => {
      expect((await t.call("GET", "/healthz")).body).toEqual({ status: "ok" });
      const ready = await t.call("GET", "/readyz");
      expect(ready.status).toBe(200);
      expect(ready.body).toEqual({ status: "ready", database: kind, transport: "in-process" });
    });

    it("metrics count requests by route pattern and status", async () => {
      await t.call("GET", "/v1/nodes");
      const res = await t.call("GET", "/metrics");
      expect(res.status).toBe(200);
      expect(res.text).toMatch(
        /vantage_http_requests_total\{method="GET",route="\/v1\/nodes",status="200"\} \d+/,
      );
      expect(res.text).toContain("vantage_http_request_duration_seconds_bucket");
    });

    it("serves the docs page without any CDN", async () => {
      const page = await t.call("GET", "/docs");
      expect(page.status).toBe(200);
      expect(page.text).toContain('src="/docs/standalone.js"');
      expect(page.text).not.toMatch(/https?:\/\/cdn/);
      const script = await t.app.request("/docs/standalone.js");
      expect(script.status).toBe(200);
      expect((await script.arrayBuffer()).byteLength).toBeGreaterThan(100_000);
    });

    it("the landing document points to the docs", async () => {
      const res = await t.call("GET", "/");
      expect(res.body.data).toMatchObject({ docs: "/docs", openapi: "/v1/openapi.json", api_form: form });
    });
  });
});

describe("readiness when the database is gone", () => {
  it("answers 503 unavailable", async () => {
    const testDb = await openTestDb("postgres");
    const t = makeTestApp(testDb, "b");
    await testDb.close();
    const res = await t.call("GET", "/readyz");
    expect(res.status).toBe(503);
    expect(res.body.error.code).toBe("unavailable");
  });

  it("a route that needs the database answers 503 unavailable with Retry-After while PostgreSQL is away", async () => {
    // Nothing listens on this port: every connection attempt is refused, as while PostgreSQL restarts.
    const url = `postgres://postgres@127.0.0.1:${await freePort()}/vantage`;
    const db = await connectDb({ databaseUrl: url, dataDir: "unused", maxConnections: 1 });
    try {
      for (const form of forms) {
        const t = makeTestApp({ kind: "postgres", db, close: () => db.close() }, form);
        const res = await t.call("POST", "/v1/auth/login", {
          body: { email: "someone@example.com", password: "correct horse battery" },
        });
        expect(res.status).toBe(503);
        expect(res.body.error.code).toBe("unavailable");
        expect(res.headers.get("retry-after")).toBe("5");
      }
    } finally {
      await db.close();
    }
  });
});
