import { createRoute, z } from "@hono/zod-openapi";
import { describe, expect, it } from "vitest";
import { issuesToDetails, MAX_ERROR_DETAILS, validationError } from "./errors.js";
import { handleError } from "./errors-handler.js";
import { createRouter } from "./router.js";

const strict = z.strictObject({ name: z.string(), count: z.number().optional() });

function errorOf(schema: z.ZodType, value: unknown): z.ZodError {
  const r = schema.safeParse(value);
  if (r.success) throw new Error("expected a validation failure");
  return r.error;
}

/** `{k0: 0, k1: 1, …}` with `n` keys, plus `extra`. */
function manyKeys(n: number, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const body: Record<string, unknown> = { ...extra };
  for (let i = 0; i < n; i++) body[`k${i}`] = i;
  return body;
}

describe("validation error details", () => {
  it("lists every issue while there are few", () => {
    const details = issuesToDetails(errorOf(strict, { name: 1, a: 1, b: 2 }), "json");
    expect(details).toEqual([
      { path: "body.name", message: expect.any(String) },
      { path: "body.a", message: "unknown field" },
      { path: "body.b", message: "unknown field" },
    ]);
    // Exactly the cap: no summary entry.
    const atCap = issuesToDetails(errorOf(strict, manyKeys(MAX_ERROR_DETAILS, { name: "x" })), "json");
    expect(atCap).toHaveLength(MAX_ERROR_DETAILS);
    expect(atCap.at(-1)).toEqual({ path: `body.k${MAX_ERROR_DETAILS - 1}`, message: "unknown field" });
  });

  it("9,999 unknown keys: the first 20, then one entry counting the rest", () => {
    const error = errorOf(strict, manyKeys(9_999, { name: "x" }));
    const details = issuesToDetails(error, "json");
    expect(details).toHaveLength(MAX_ERROR_DETAILS + 1);
    expect(details.slice(0, MAX_ERROR_DETAILS)).toEqual(
      Array.from({ length: MAX_ERROR_DETAILS }, (_, i) => ({ path: `body.k${i}`, message: "unknown field" })),
    );
    expect(details.at(-1)).toEqual({ path: "body", message: "… and 9979 more issues" });
    const api = validationError(error, "json");
    expect(api.code).toBe("unknown_field");
    expect(api.message).toBe("body.k0: unknown field");
  });

  it("many ordinary issues, and unknown keys past the cap, are counted too", () => {
    const numbers = z.object({ values: z.array(z.number()) });
    const details = issuesToDetails(errorOf(numbers, { values: Array(5_000).fill("x") }), "query");
    expect(details).toHaveLength(MAX_ERROR_DETAILS + 1);
    expect(details[0]).toEqual({ path: "query.values.0", message: expect.any(String) });
    expect(details.at(-1)).toEqual({ path: "query", message: "… and 4980 more issues" });

    // 19 type errors, then 3 unknown keys: one key fits, two are counted; one more issue says "issue".
    const mixed = z.strictObject({ values: z.array(z.number()) });
    const d2 = issuesToDetails(errorOf(mixed, { values: Array(19).fill("x"), a: 1, b: 2, c: 3 }), "json");
    expect(d2).toHaveLength(MAX_ERROR_DETAILS + 1);
    expect(d2[19]).toEqual({ path: "body.a", message: "unknown field" });
    expect(d2.at(-1)).toEqual({ path: "body", message: "… and 2 more issues" });
    const d3 = issuesToDetails(errorOf(mixed, { values: Array(20).fill("x"), a: 1 }), "json");
    expect(d3.at(-1)).toEqual({ path: "body", message: "… and 1 more issue" });
    // The first issue still decides code and message.
    expect(validationError(errorOf(mixed, { values: ["x"], a: 1 }), "json").code).toBe("validation_error");
  });

  it("numbers read from text: what the caller sent, not what coercion made of it", () => {
    const query = z.object({ per_page: z.coerce.number().int().min(1).max(100), at: z.coerce.number() });
    const messages = (raw: Record<string, string>) =>
      issuesToDetails(errorOf(query, raw), "query").map((d) => `${d.path}: ${d.message}`);
    expect(messages({ per_page: "abc", at: "1" })).toEqual(["query.per_page: expected a number"]);
    expect(messages({ per_page: "1.5", at: "Infinity" })).toEqual([
      "query.per_page: expected a whole number",
      "query.at: expected a number",
    ]);
    expect(validationError(errorOf(query, { per_page: "x", at: "1" }), "query").message).toBe(
      "query.per_page: expected a number",
    );
    // Bounds and JSON bodies keep zod's own words, which name what was sent.
    expect(messages({ per_page: "500", at: "1" })[0]).toMatch(
      /^query\.per_page: Too big: expected number to be <=100/,
    );
    expect(issuesToDetails(errorOf(strict, { name: "x", count: "3" }), "json")).toEqual([
      { path: "body.count", message: "Invalid input: expected number, received string" },
    ]);
  });

  it("a route answers such a body with a small error envelope", async () => {
    const app = createRouter();
    app.openapi(
      createRoute({
        method: "post",
        path: "/echo",
        request: { body: { required: true, content: { "application/json": { schema: strict } } } },
        responses: { 200: { description: "echo" } },
      }),
      (c) => c.json({}, 200),
    );
    app.onError(handleError);
    const body = JSON.stringify(manyKeys(9_999, { name: "x" }));
    const res = await app.request("/echo", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body,
    });
    expect(res.status).toBe(400);
    const text = await res.text();
    expect(text.length).toBeLessThan(2_000);
    const parsed = JSON.parse(text) as { error: { code: string; details: unknown[] } };
    expect(parsed.error.code).toBe("unknown_field");
    expect(parsed.error.details).toHaveLength(MAX_ERROR_DETAILS + 1);
  });
});
