import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { installCore } from "./core.js";
import { handleError } from "./errors-handler.js";
import { MAX_JSON_DEPTH, MAX_JSON_VALUES } from "./json-shape.js";
import { HttpMetrics } from "./metrics.js";
import { createRouter } from "./router.js";

/** The body guard as the app runs it: the core, a route echoing the parsed body, `onError`. */
function guardedApp(bodyLimit = 2 * 1024 * 1024, refusedLimit?: number) {
  const app = createRouter();
  installCore(app, {
    log: pino({ level: "silent" }),
    metrics: new HttpMetrics(false),
    accessLog: false,
    // `app.request` has no socket: its peer is 127.0.0.1, which here may name the client.
    trustedProxies: ["127.0.0.1"],
    bodyLimit,
    ...(refusedLimit === undefined ? {} : { refusedLimit }),
  });
  app.post("/echo", async (c) => c.json({ kind: typeof (await c.req.json()) }));
  app.get("/echo", (c) => c.json({ kind: "none" }));
  app.onError(handleError);
  return app;
}

async function post(app: ReturnType<typeof guardedApp>, body: string, from = "203.0.113.7") {
  const res = await app.request("/echo", {
    method: "POST",
    headers: { "content-type": "application/json", "x-forwarded-for": from },
    body,
  });
  return {
    status: res.status,
    headers: res.headers,
    body: (await res.json()) as { error?: { code: string; message: string; details?: unknown } },
  };
}

const deep = (n: number) => "[".repeat(n) + "]".repeat(n);

describe("body guard: hostile shapes", () => {
  const app = guardedApp();

  it(`accepts JSON nested ${MAX_JSON_DEPTH} levels deep`, async () => {
    expect((await post(app, deep(MAX_JSON_DEPTH))).status).toBe(200);
    expect((await post(app, `${'{"a":'.repeat(MAX_JSON_DEPTH)}1${"}".repeat(MAX_JSON_DEPTH)}`)).status).toBe(
      200,
    );
  });

  it.each([MAX_JSON_DEPTH + 1, 10_000, 100_000])(
    "refuses JSON nested %i levels deep: 400 validation_error naming the limit",
    async (depth) => {
      const res = await post(app, deep(depth));
      expect(res.status).toBe(400);
      expect(res.body.error?.code).toBe("validation_error");
      expect(res.body.error?.message).toContain(`${MAX_JSON_DEPTH} levels`);
      expect(res.body.error?.details).toEqual([{ path: "body", message: expect.stringContaining("64") }]);
    },
  );

  it("refuses the same depth in objects, and unclosed brackets alike", async () => {
    expect((await post(app, `${'{"a":'.repeat(10_000)}1${"}".repeat(10_000)}`)).status).toBe(400);
    const unclosed = await post(app, "[".repeat(10_000));
    expect(unclosed.status).toBe(400);
    expect(unclosed.body.error?.code).toBe("validation_error");
  });

  it("refuses a ~1 MB body 3,000 deep holding 515,000 elements with the nesting 400", async () => {
    const body = `${"[".repeat(3_000)}${Array(515_000).fill("0").join(",")}${"]".repeat(3_000)}`;
    const res = await post(app, body);
    expect(res.status).toBe(400);
    expect(res.body.error?.message).toContain(`${MAX_JSON_DEPTH} levels`);
  });

  it.each([
    ["515,000 numbers 63 deep", `${"[".repeat(63)}${Array(515_000).fill("0").join(",")}${"]".repeat(63)}`],
    ["350,000 empty objects", `[${Array(350_000).fill("{}").join(",")}]`],
    ["an object of 70,000 keys", `{${Array.from({ length: 70_000 }, (_, i) => `"k${i}":1`).join(",")}}`],
  ])("refuses a ~1 MB body of %s before parsing it: 400 naming the value limit", async (_what, body) => {
    const res = await post(app, body);
    expect(res.status).toBe(400);
    expect(res.body.error?.code).toBe("validation_error");
    expect(res.body.error?.message).toContain(`${MAX_JSON_VALUES} values`);
  });

  it("walks a body within the limits to its last string", async () => {
    const strings = Array(MAX_JSON_VALUES - 2).fill('"x"');
    expect((await post(app, `[${strings.join(",")}]`)).status).toBe(200);
    strings[strings.length - 1] = '"\\u0000"';
    const res = await post(app, `{"a":[${strings.join(",")}]}`);
    expect(res.status).toBe(400);
    expect(res.body.error?.message).toMatch(new RegExp(`^body\\.a\\.${MAX_JSON_VALUES - 3}: `));
  });

  it("brackets inside strings do not count", async () => {
    expect((await post(app, JSON.stringify({ s: "[".repeat(10_000) }))).status).toBe(200);
  });
});

describe("body guard: refused requests count against the client's address", () => {
  it("past the limit, that address's bodies get 429 unread; others and body-less requests do not", async () => {
    const app = guardedApp(1024, 3);
    expect((await post(app, "{nope")).status).toBe(400);
    expect((await post(app, "x".repeat(2000))).status).toBe(413);
    const wrongType = await app.request("/echo", {
      method: "POST",
      headers: { "content-type": "text/plain", "x-forwarded-for": "203.0.113.7" },
      body: "hi",
    });
    expect(wrongType.status).toBe(415);
    // The fourth body, a good one, is not read: the address has spent its refusals for this minute.
    const refused = await post(app, '{"ok":true}');
    expect(refused.status).toBe(429);
    expect(refused.body.error?.code).toBe("rate_limited");
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(refused.headers.get("ratelimit-limit")).toBe("3");
    expect(refused.headers.get("ratelimit-remaining")).toBe("0");
    // Another address, and a request without a body from the same one, are served.
    expect((await post(app, '{"ok":true}', "198.51.100.9")).status).toBe(200);
    const get = await app.request("/echo", { headers: { "x-forwarded-for": "203.0.113.7" } });
    expect(get.status).toBe(200);
  });

  it("answers that are not refusals do not count", async () => {
    const app = guardedApp(1024, 2);
    for (let i = 0; i < 5; i++) expect((await post(app, '{"ok":true}')).status).toBe(200);
    expect((await post(app, "{nope")).status).toBe(400);
    expect((await post(app, '{"ok":true}')).status).toBe(200);
  });
});
