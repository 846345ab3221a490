import fc from "fast-check";

/**
 * The generated requests of fuzz-netns.e2e.test.ts: every probe and lookup operation of a controller's
 * OpenAPI document, with hostile hosts, URLs, DNS servers, ports, counts and budgets at and past their
 * bounds, and arbitrary JSON; and the pool that sends them a few at a time.
 */

// ---- hostile pieces (the namespace's own HTTP server listens on 127.0.0.1:8080) ----

/** Names and addresses a probe may be sent to here (none reachable but loopback), valid to the API. */
const validHosts = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.constantFrom(
      "crash.test",
      "fuzz.example",
      "localhost",
      "xn--bcher-kva.test",
      "bücher.test",
      "127.0.0.1",
      "127.1",
      "::1",
      "::ffff:127.0.0.1",
      "2001:db8::1",
      "fe80::1",
      "ff02::1",
      "203.0.113.77",
      "198.51.100.53",
      "0.0.0.0",
      "255.255.255.255",
      "224.0.0.1",
      "169.254.169.254",
      `${"a".repeat(63)}.test`,
    ),
  },
  { weight: 1, arbitrary: fc.domain() },
);
/** …and forms the API refuses, or that only some fields take. */
const hosts = fc.oneof(
  { weight: 4, arbitrary: validHosts },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      "[::1]",
      "0x7f.1",
      "2130706433",
      "256.1.1.1",
      "a..b",
      "-x-.test",
      `${"b".repeat(60)}.`.repeat(4).slice(0, 253),
    ),
  },
  { weight: 1, arbitrary: fc.string({ maxLength: 30 }) },
);
const ports = fc.oneof(
  fc.constantFrom(0, 1, 53, 80, 443, 7, 8080, 65535, 65536, -1),
  fc.integer({ min: 1, max: 65535 }),
);
const bracketed = (h: string) => (h.includes(":") && !h.startsWith("[") ? `[${h}]` : h);
const urls = fc.oneof(
  {
    weight: 4,
    arbitrary: fc
      .tuple(fc.constantFrom("http", "https"), hosts, fc.option(ports), fc.constantFrom("/", "/x?y=1", ""))
      .map(([s, h, p, path]) => `${s}://${bracketed(h)}${p === null ? "" : `:${p}`}${path}`),
  },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      "http://127.0.0.1:8080/",
      "https://127.0.0.1:8080/",
      "http://127.0.0.1:1/",
      "http://[::1]:8080/",
      "http://localhost:8080/",
      "ftp://127.0.0.1/",
      "http://",
      "http://user:pw@127.0.0.1:8080/",
      "http://crash.test:8080/",
    ),
  },
  { weight: 1, arbitrary: fc.webUrl() },
  { weight: 1, arbitrary: fc.string({ maxLength: 40 }) },
);
const servers = fc.oneof(
  fc.constantFrom(
    "198.51.100.53",
    "127.0.0.1",
    "127.0.0.1:53",
    "127.0.0.1:8080",
    "[::1]:53",
    "::1",
    "255.255.255.255",
    "224.0.0.251:5353",
    "0.0.0.0",
    "203.0.113.77:53",
    "crash.test",
    "[2001:db8::1]:53",
    "127.0.0.1:0",
    "127.0.0.1:65536",
  ),
  hosts,
);
const targets: Record<string, fc.Arbitrary<unknown>> = {
  http: urls,
  tcp: fc.oneof(
    fc.tuple(hosts, ports).map(([h, p]) => `${bracketed(h)}:${p}`),
    hosts,
  ),
};
const junk = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  fc.constantFrom(-1, 0, 1e9, 1.5, "", null, true, [], {}),
);

// biome-ignore lint/suspicious/noExplicitAny: walking an OpenAPI document
type Schema = any;

function resolveRef(s: Schema, doc: Schema): Schema {
  let out = s;
  for (let i = 0; out?.$ref && i < 10; i++) out = doc.components.schemas[String(out.$ref).split("/").pop()!];
  return out ?? {};
}

/**
 * A value for field `name`: the hostile pool for the fields that name a target, bounds otherwise. `wild`
 * adds wrong types and values past the bounds (refused with a 400 before any node is asked); without it a
 * body mostly passes validation and reaches the agent, where the hostile network is.
 */
function valueFor(
  name: string,
  schema: Schema,
  doc: Schema,
  depth: number,
  wild: boolean,
): fc.Arbitrary<unknown> {
  const s = resolveRef(schema, doc);
  const variants = s.oneOf ?? s.anyOf;
  if (variants && depth < 3)
    return fc.oneof(...(variants as Schema[]).map((v) => valueFor(name, v, doc, depth + 1, wild)));
  const tame = (a: fc.Arbitrary<unknown>) =>
    wild ? fc.oneof({ weight: 6, arbitrary: a }, { weight: 1, arbitrary: junk }) : a;
  if (name === "url") return tame(wild ? fc.oneof(urls, hosts) : urls);
  if (name === "target" && depth === 0)
    return tame(
      fc.oneof(
        urls,
        hosts,
        fc.tuple(hosts, ports).map(([h, p]) => `${bracketed(h)}:${p}`),
      ),
    );
  if (["host", "domain", "q"].includes(name)) return tame(wild ? hosts : validHosts);
  if (name === "server") return tame(servers);
  if (name === "port") return tame(wild ? ports : fc.constantFrom(1, 53, 80, 8080, 65535));
  if (name === "nodes" || name === "node_ids")
    return wild
      ? fc.constantFrom(undefined, ["local"], [], ["nope"], ["local", "local"], "local")
      : fc.constantFrom(undefined, ["local"]);
  if (name === "headers" || name === "body" || name === "keyword")
    return wild ? fc.option(junk, { nil: undefined }) : fc.constant(undefined);
  if (s.enum) return tame(fc.constantFrom(...s.enum));
  const type = Array.isArray(s.type) ? s.type[0] : s.type;
  if (type === "integer" || type === "number") {
    const min = s.minimum ?? 0;
    const max = s.maximum ?? 100;
    // Tame: near the minimum, so a budget (seconds, ms, counts, hops) stays short and the run bounded.
    const low = fc.integer({ min, max: Math.min(max, min + 3) });
    return wild ? fc.oneof(low, fc.constantFrom(min, max, min - 1, max + 1, 0.5, -1), junk) : low;
  }
  if (type === "boolean") return tame(fc.boolean());
  if (type === "object" && depth < 3) return tame(objectFor(s, doc, depth + 1, wild));
  return wild ? fc.oneof(fc.string({ maxLength: 20 }), junk) : fc.constant(undefined);
}

function objectFor(
  schema: Schema,
  doc: Schema,
  depth: number,
  wild: boolean,
  fieldsOverride: Record<string, fc.Arbitrary<unknown>> = {},
): fc.Arbitrary<Record<string, unknown>> {
  const s = resolveRef(schema, doc);
  const required = new Set<string>(s.required ?? []);
  const fields = Object.entries((s.properties ?? {}) as Record<string, Schema>).map(([name, sub]) => {
    const given = fieldsOverride[name];
    const v = given
      ? wild
        ? fc.oneof({ weight: 6, arbitrary: given }, { weight: 1, arbitrary: junk })
        : given
      : valueFor(name, sub, doc, depth, wild);
    // Required fields there (but now and then, wild), optional ones half the time.
    const present = !required.has(name)
      ? fc.option(v, { nil: undefined })
      : wild
        ? fc.oneof({ weight: 9, arbitrary: v }, { weight: 1, arbitrary: fc.constant(undefined) })
        : v;
    return present.map((x) => [name, x] as const);
  });
  return fc.tuple(...fields).map((pairs) => Object.fromEntries(pairs.filter(([, x]) => x !== undefined)));
}

export interface Generated {
  method: string;
  path: string;
  body?: unknown;
}

export function requestsFor(doc: Schema): fc.Arbitrary<Generated> {
  const ops: fc.Arbitrary<Generated>[] = [];
  for (const [path, item] of Object.entries(doc.paths as Record<string, Schema>)) {
    if (/^\/v1\/probe\/(http|ping|dns|tcp|traceroute)$/.test(path) && item.post) {
      const schema = item.post.requestBody?.content?.["application/json"]?.schema;
      // Form A's `target` is the URL, host:port or host of its type.
      const type = path.slice("/v1/probe/".length);
      const target = { target: targets[type] ?? validHosts };
      const body = fc.oneof(
        { weight: 7, arbitrary: objectFor(schema, doc, 0, false, target) as fc.Arbitrary<unknown> },
        { weight: 2, arbitrary: objectFor(schema, doc, 0, true, target) as fc.Arbitrary<unknown> },
        { weight: 1, arbitrary: junk },
      );
      ops.push(body.map((b) => ({ method: "POST", path, body: b })));
    } else if (/^\/v1\/(info|ip)\//.test(path) && item.get) {
      const names = ((item.get.parameters ?? []) as Schema[])
        .filter((p) => p.in === "query")
        .map((p) => p.name as string);
      const params = fc.tuple(
        ...names.map((n) =>
          fc.option(
            n === "type"
              ? fc.constantFrom("A", "AAAA", "MX", "TXT", "NS", "SOA", "ANY", "")
              : fc.oneof(
                  { weight: 6, arbitrary: validHosts },
                  { weight: 1, arbitrary: hosts },
                  { weight: 1, arbitrary: urls },
                ),
            { freq: 12 },
          ),
        ),
      );
      ops.push(
        params.map((vs) => {
          const q = names.flatMap((n, i) =>
            vs[i] == null ? [] : [`${n}=${encodeURIComponent(String(vs[i]))}`],
          );
          return { method: "GET", path: q.length ? `${path}?${q.join("&")}` : path };
        }),
      );
    }
  }
  if (ops.length < 8)
    throw new Error(`expected the probe and lookup operations in the OpenAPI document, found ${ops.length}`);
  return fc.oneof(...ops);
}

/** Runs `work` over `items`, at most `n` at a time. */
export async function pool<T>(items: T[], n: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: n }, async () => {
      while (next < items.length) await work(items[next++]!);
    }),
  );
}
