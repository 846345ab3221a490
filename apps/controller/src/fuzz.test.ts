import { type DnsTestServer, startDnsServer } from "@vantage/probes/testing/dns-server";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { errorCodes } from "./http/errors.js";
import { MAX_JSON_DEPTH, MAX_JSON_VALUES } from "./http/json-shape.js";
import { StripeFixture } from "./testing/stripe-fixture.js";
import type { Form } from "./testing/test-app.js";
import { useTestDb } from "./testing/use-test-db.js";

type TestApp = ReturnType<ReturnType<typeof useTestDb>["app"]>;

/**
 * Every operation of the OpenAPI document, in both forms, driven with generated input: arbitrary JSON,
 * bodies shaped like the operation's schema with hostile values (wrong types, NUL and lone surrogates,
 * huge numbers, nesting up to 10,000 levels, arrays of 100,000 elements, bodies near the size limit),
 * random path parameters and query strings, with and without credentials. Whatever comes in: never a 5xx
 * (but 503 `no_nodes_available` from the probe routes, as the test app has no agents, and the upstream
 * codes 502/503/504 from the lookups, whose remotes the test app cannot reach), every 4xx in the
 * error envelope, and every answer within `MAX_MS`. Seeded (one seed per operation): a failure names
 * its seed and counterexample path, and `fc.check` with both (`{seed, path}`) replays it.
 */
// Another seed or more runs explore further: VANTAGE_FUZZ_SEED=… VANTAGE_FUZZ_RUNS=… pnpm exec vitest run …
const SEED = Number(process.env.VANTAGE_FUZZ_SEED ?? 20261123);
const RUNS_PER_OPERATION = Number(process.env.VANTAGE_FUZZ_RUNS ?? 60);
/**
 * Each answer's bound: far above a normal answer (a few ms), far below what a pathological input costs
 * (a backtracking pattern, a body parsed whole: seconds). 500 ms failed once on a machine three times slower
 * than usual (a reputation lookup of a name, 565 ms), so the bound allows for that.
 */
const MAX_MS = 1000;

// biome-ignore lint/suspicious/noExplicitAny: walking an OpenAPI document
type Schema = any;

interface Operation {
  method: string;
  path: string;
  op: Schema;
}

function operations(openapi: Record<string, unknown>): Operation[] {
  const out: Operation[] = [];
  for (const [path, item] of Object.entries(openapi.paths as Record<string, Record<string, Schema>>)) {
    for (const [method, op] of Object.entries(item)) out.push({ method: method.toUpperCase(), path, op });
  }
  return out;
}

// ---- hostile pieces ----

/** Text units including the ones PostgreSQL cannot store. */
const hostileUnit = fc.oneof(
  { weight: 6, arbitrary: fc.string({ unit: "binary", minLength: 1, maxLength: 1 }) },
  { weight: 1, arbitrary: fc.constantFrom("\u0000", "\ud800", "\udfff", "\u202e", "\ufeff", '"', "\\") },
);
const hostileString = fc.oneof(
  { weight: 4, arbitrary: fc.string({ unit: hostileUnit, maxLength: 40 }) },
  { weight: 1, arbitrary: fc.integer({ min: 1_000, max: 200_000 }).map((n) => "a".repeat(n)) },
  {
    weight: 1,
    arbitrary: fc.constantFrom("%00", "../../etc/passwd", "127.0.0.1", "localhost", "http://[::1]/"),
  },
);
const hugeNumber = fc.constantFrom(
  "1e999999",
  "-1e999999",
  "1e-999999",
  "-0",
  "123456789012345678901234567890123456789",
  "9007199254740993",
  "0.000000000000000000000000000001",
);
const nesting = (depth: number, open: "[" | "{") =>
  open === "[" ? "[".repeat(depth) + "]".repeat(depth) : `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`;
const deepValue = fc
  .tuple(
    fc.oneof(
      fc.integer({ min: MAX_JSON_DEPTH - 2, max: MAX_JSON_DEPTH + 2 }),
      fc.integer({ min: 1, max: 10_000 }),
    ),
    fc.constantFrom("[" as const, "{" as const),
  )
  .map(([depth, open]) => nesting(depth, open));
const largeArray = fc
  .tuple(
    fc.oneof(
      fc.integer({ min: MAX_JSON_VALUES - 3, max: MAX_JSON_VALUES + 1 }),
      fc.integer({ min: 1_000, max: 100_000 }),
    ),
    fc.constantFrom("0", '"x"', "{}", "[]", "null", '"\\u0000"'),
  )
  .map(([n, item]) => `[${Array(n).fill(item).join(",")}]`);

/** JSON text of some value: plain, hostile, huge, deep or large. */
const anyValueText: fc.Arbitrary<string> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.jsonValue({ maxDepth: 4, stringUnit: hostileUnit }).map((v) => JSON.stringify(v)),
  },
  { weight: 2, arbitrary: hostileString.map((s) => JSON.stringify(s)) },
  { weight: 1, arbitrary: hugeNumber },
  { weight: 1, arbitrary: deepValue },
  { weight: 1, arbitrary: largeArray },
);

// ---- values shaped like the schema ----

function resolve(schema: Schema, doc: Schema): Schema {
  let s = schema;
  for (let i = 0; s?.$ref && i < 10; i++) s = doc.components.schemas[String(s.$ref).split("/").pop()!];
  return s ?? {};
}

/** JSON text of a value the schema would plausibly accept (its example, an enum member, a bound). */
function plausibleText(schema: Schema, doc: Schema, depth = 0): fc.Arbitrary<string> {
  const s = resolve(schema, doc);
  const variants = s.oneOf ?? s.anyOf;
  if (variants && depth < 4) {
    return fc.oneof(
      ...(variants as Schema[]).map((v): fc.Arbitrary<string> => plausibleText(v, doc, depth + 1)),
    );
  }
  if (s.example !== undefined) return fc.constant(JSON.stringify(s.example));
  if (s.enum) return fc.constantFrom(...s.enum.map((v: unknown) => JSON.stringify(v)));
  const type = Array.isArray(s.type) ? s.type[0] : s.type;
  switch (type) {
    case "integer":
    case "number":
      return fc.integer({ min: s.minimum ?? -1_000, max: s.maximum ?? 1_000 }).map(String);
    case "boolean":
      return fc.boolean().map(String);
    case "array":
      return depth < 4
        ? fc
            .array(plausibleText(s.items ?? {}, doc, depth + 1), { maxLength: 3 })
            .map((xs) => `[${xs.join(",")}]`)
        : fc.constant("[]");
    case "object":
      return depth < 4 ? objectText(s, doc, depth + 1) : fc.constant("{}");
    default:
      return fc.constantFrom('"example.com"', '"fra1"', '"you@example.com"', '"correct horse battery"');
  }
}

/**
 * An object with the schema's fields. Hostile: each field left out, plausible or hostile, sometimes an
 * unknown field too. Otherwise: required fields plausible, the others plausible or left out.
 */
function objectText(schema: Schema, doc: Schema, depth = 0, hostile = true): fc.Arbitrary<string> {
  const s = resolve(schema, doc);
  const required = new Set<string>(s.required ?? []);
  const props = Object.entries((s.properties ?? {}) as Record<string, Schema>);
  const omitted = fc.constant(undefined);
  const field = ([name, sub]: [string, Schema]) => {
    const plausible = plausibleText(sub, doc, depth);
    const choice = hostile
      ? fc.oneof(
          { weight: 1, arbitrary: omitted },
          { weight: 3, arbitrary: plausible },
          { weight: 2, arbitrary: anyValueText },
        )
      : required.has(name)
        ? plausible
        : fc.oneof(omitted, plausible);
    return choice.map((v) => (v === undefined ? undefined : `${JSON.stringify(name)}:${v}`));
  };
  const extra = hostile ? fc.option(fc.tuple(hostileString, anyValueText), { freq: 5 }) : fc.constant(null);
  return fc.tuple(fc.tuple(...props.map(field)), extra).map(([fields, more]) => {
    const parts = fields.filter((f): f is string => f !== undefined);
    if (more) parts.push(`${JSON.stringify(more[0])}:${more[1]}`);
    return `{${parts.join(",")}}`;
  });
}

function bodyText(op: Schema, doc: Schema): fc.Arbitrary<string | undefined> {
  const schema = op.requestBody?.content?.["application/json"]?.schema;
  const shaped = schema ? objectText(schema, doc) : fc.constant("{}");
  const valid = schema ? objectText(schema, doc, 0, false) : fc.constant("{}");
  return fc.oneof(
    { weight: 5, arbitrary: shaped },
    { weight: 2, arbitrary: valid },
    { weight: 3, arbitrary: anyValueText },
    { weight: 1, arbitrary: fc.string({ unit: hostileUnit, maxLength: 60 }) },
    { weight: 1, arbitrary: shaped.map((t) => t.slice(0, Math.floor(t.length / 2))) },
    { weight: 1, arbitrary: fc.constant(undefined) },
  );
}

// ---- paths, queries, credentials ----

/** `s` with lone surrogates as U+FFFD (`String.prototype.toWellFormed`, not in this TypeScript lib). */
const wellFormed = (s: string) =>
  s.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, "\ufffd");

/** Percent-encodes anything, lone surrogates included (as U+FFFD), plus raw broken escapes now and then. */
const urlPart = fc.oneof(
  { weight: 4, arbitrary: hostileString.map((s) => encodeURIComponent(wellFormed(s.slice(0, 300)))) },
  { weight: 1, arbitrary: fc.constantFrom("%", "%zz", "%ff%fe", "%c0%af", "..", "key_", "task_0000", "%2F") },
);

function pathOf(template: string): fc.Arbitrary<string> {
  const names = [...template.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
  return fc
    .tuple(...names.map(() => urlPart.filter((p) => p.length > 0)))
    .map((values) => names.reduce((p, n, i) => p.replace(`{${n}}`, values[i]!), template));
}

function queryOf(op: Schema): fc.Arbitrary<string> {
  const known = ((op.parameters ?? []) as Schema[])
    .filter((p) => p.in === "query")
    .map((p) => p.name as string);
  const name = known.length > 0 ? fc.oneof(fc.constantFrom(...known), urlPart) : urlPart;
  const value = fc.oneof(urlPart, hugeNumber, fc.integer().map(String));
  return fc
    .array(fc.tuple(name, value), { maxLength: 4 })
    .map((pairs) => (pairs.length === 0 ? "" : `?${pairs.map(([k, v]) => `${k}=${v}`).join("&")}`));
}

const probeRoute = /^\/v1\/probe\/(http|ping|dns|tcp|traceroute|mtr)$/;
/** Lookups reach remotes: the test app resolves no name and its resolver is a fixture, so they fail fast. */
const lookupRoute = /^\/v1\/(info|ip)\//;
const upstreamCodes: Record<number, string> = {
  502: "upstream_error",
  503: "source_unavailable",
  504: "upstream_timeout",
};

async function credentials(t: TestApp, form: Form): Promise<Record<string, string>[]> {
  const reg = await t.call("POST", "/v1/auth/register", {
    body: { email: `fuzz-${form}@example.com`, password: "correct horse battery" },
  });
  const jwt = reg.body?.data?.access_token as string;
  const key = await t.call("POST", "/v1/account/api-keys", {
    body: { name: "fuzz" },
    headers: { authorization: `Bearer ${jwt}` },
  });
  const secret = key.body?.data?.key as string;
  if (!jwt || !secret) throw new Error(`fuzz set-up failed: ${reg.status} ${key.status}`);
  return [
    {},
    form === "a" ? { authorization: `Bearer ${secret}` } : { "x-api-key": secret },
    { authorization: "Bearer not-a-token" },
    { "x-api-key": "vantage_live_000" },
  ];
}

describe.each(["a", "b"] as const)("fuzz, Form %s: every operation, hostile input", (form) => {
  const db = useTestDb("pglite");
  let t: TestApp;
  let creds: Record<string, string>[];
  let dns: DnsTestServer;
  // Billing on, against a loopback Stripe: its routes are fuzzed for real, not answered 503 unconfigured.
  const stripe = new StripeFixture();
  beforeAll(async () => {
    dns = await startDnsServer();
    await stripe.start();
    t = db.app(form, {
      VANTAGE_DNS_RESOLVER: `127.0.0.1:${dns.port}`,
      STRIPE_SECRET_KEY: stripe.secretKey,
      STRIPE_WEBHOOK_SECRET: "whsec_ZnV6ei13ZWJob29rLXNlY3JldC0wMTIzNDU2Nzg5",
      STRIPE_PRICE_PRO: "price_fuzz_pro",
      STRIPE_PRICE_BUSINESS: "price_fuzz_business",
      STRIPE_API_BASE: stripe.url,
    });
    creds = await credentials(t, form);
  });
  afterAll(async () => {
    await dns?.close();
    await stripe.stop();
  });

  it("never a 5xx (but 503 no_nodes_available on probes), 4xx in the envelope, each answer fast", async () => {
    const doc = t.openapi() as Schema;
    const ops = operations(t.openapi());
    expect(ops.length).toBeGreaterThan(10);
    for (const [i, { method, path, op }] of ops.entries()) {
      const hasBody = method !== "GET" && method !== "HEAD";
      const request = fc.record({
        path: pathOf(path),
        query: queryOf(op),
        cred: fc.nat({ max: creds.length - 1 }),
        body: hasBody ? bodyText(op, doc) : fc.constant(undefined),
      });
      const outcome = await fc.check(
        fc.asyncProperty(request, async (r) => {
          const url = r.path + r.query;
          const start = performance.now();
          const res = await t.call(method, url, {
            headers: creds[r.cred]!,
            ...(r.body === undefined ? {} : { body: r.body }),
          });
          const ms = performance.now() - start;
          const sent =
            r.body === undefined
              ? "no body"
              : `${r.body.length} chars ${JSON.stringify(r.body.slice(0, 80))}`;
          const what = `${method} ${url.slice(0, 120)} (${sent}) → ${res.status} ${res.text.slice(0, 200)}`;
          expect(ms, `${what}: took ${ms.toFixed(0)} ms`).toBeLessThan(MAX_MS);
          if (res.status >= 500 && lookupRoute.test(path)) {
            // An upstream failing is the remote's doing, not a server error: the envelope says which.
            expect(res.body?.error?.code, what).toBe(upstreamCodes[res.status]);
          } else if (res.status >= 500) {
            expect(res.status, what).toBe(503);
            expect(probeRoute.test(path) && method === "POST", what).toBe(true);
            expect(res.body?.error?.code, what).toBe("no_nodes_available");
          }
          if (res.status >= 400) {
            expect(res.body, what).toEqual({
              error: expect.objectContaining({ code: expect.any(String), message: expect.any(String) }),
              request_id: res.headers.get("x-request-id"),
            });
            expect(Object.keys(errorCodes), what).toContain(res.body.error.code);
          }
        }),
        { seed: SEED + i, numRuns: RUNS_PER_OPERATION, endOnFailure: true },
      );
      // fast-check's own report would print the whole counterexample, which may be a megabyte.
      if (outcome.failed) {
        const reason = outcome.errorInstance instanceof Error ? outcome.errorInstance.message : "";
        throw new Error(
          `${method} ${path}: seed ${outcome.seed}, path "${outcome.counterexamplePath}": ${reason.slice(0, 1500)}`,
        );
      }
    }
  }, 120_000);
});
