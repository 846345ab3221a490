import type { OpenAPIHono } from "@hono/zod-openapi";
import type { ZodType } from "zod";
import { errorEnvelopeSchema } from "../http/envelope.js";

/**
 * Checks a JSON answer against the schema the OpenAPI document gives its route and status (issue #32): the
 * zod schemas the document is generated from, so an answer that a hand-written view (`toFormA`, `toMonitorB`,
 * …) shapes differently from its documentation fails the test that received it, naming the field.
 *
 * Two kinds of mismatch:
 * - the schema refuses the answer (a missing field, a wrong type, a value outside its enum);
 * - the answer carries a field the schema does not declare (zod drops it when parsing; a strict reading of
 *   the document says a client cannot know it).
 *
 * An error answer (4xx/5xx) must be the error envelope, documented for that status or not: the common
 * guards (body size, rate limits, auth) answer on every route. A route the document does not hold (the docs
 * page, `/v1/openapi.json`, a 404 for an unknown path) is not checked.
 */
export interface ContractCheck {
  /** A description of the first mismatch, or null when the answer matches its documentation. */
  check(method: string, path: string, status: number, body: unknown): string | null;
}

interface RouteEntry {
  method: string;
  template: string;
  pattern: RegExp;
  params: number;
  // biome-ignore lint/suspicious/noExplicitAny: the registry's response entries are loosely typed
  responses: Record<string, any>;
}

/** Per app, with the registry's size when read: a route a test adds later is seen too. */
const cache = new WeakMap<object, { size: number; routes: RouteEntry[] }>();

function routesOf(app: Pick<OpenAPIHono, "openAPIRegistry">): RouteEntry[] {
  const definitions = app.openAPIRegistry.definitions;
  const hit = cache.get(app);
  if (hit && hit.size === definitions.length) return hit.routes;
  const out: RouteEntry[] = [];
  for (const d of definitions) {
    if (d.type !== "route") continue;
    const { method, path, responses } = d.route;
    const parts = path.split(/(\{[^}]+\})/);
    const source = parts
      .map((p) => (p.startsWith("{") ? "([^/]+)" : p.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")))
      .join("");
    out.push({
      method: method.toUpperCase(),
      template: path,
      pattern: new RegExp(`^${source}$`),
      params: parts.filter((p) => p.startsWith("{")).length,
      responses: responses as RouteEntry["responses"],
    });
  }
  // Literal segments win over parameters (`/v1/probe/tasks/{id}` before a `/v1/probe/{type}/…`).
  out.sort((a, b) => a.params - b.params);
  cache.set(app, { size: definitions.length, routes: out });
  return out;
}

function schemaFor(entry: RouteEntry, status: number): ZodType | undefined {
  const response = entry.responses[String(status)] ?? entry.responses.default;
  const schema = response?.content?.["application/json"]?.schema;
  return schema && typeof (schema as ZodType).safeParse === "function" ? (schema as ZodType) : undefined;
}

// biome-ignore lint/suspicious/noExplicitAny: zod's definitions are walked by their `type` tag
type Def = any;
const wrappers = new Set(["optional", "nullable", "default", "prefault", "readonly", "catch", "nonoptional"]);

/**
 * The paths of fields in `value` that `schema` does not declare (zod's default objects drop them when
 * parsing, so a parse alone cannot tell). Walks the schema beside the value: records, `z.unknown()` and
 * loose objects take any key; a union counts the branch that accepts the value with the fewest strays, so
 * a tcp result is read as a tcp result, not as an http one whose fields all happen to be optional.
 */
function strayFields(schema: ZodType, value: unknown, path: string): string[] {
  let def: Def = (schema as unknown as { _zod: { def: Def } })._zod.def;
  for (;;) {
    if (wrappers.has(def.type)) def = def.innerType._zod.def;
    else if (def.type === "pipe") def = def.in._zod.def;
    else if (def.type === "lazy") def = def.getter()._zod.def;
    else break;
  }
  if (value === null || typeof value !== "object") return [];
  if (def.type === "array" && Array.isArray(value))
    return value.flatMap((v, i) => strayFields(def.element, v, `${path}[${i}]`));
  if (def.type === "record")
    return Object.entries(value).flatMap(([k, v]) => strayFields(def.valueType, v, join(path, k)));
  if (def.type === "union") {
    let best: string[] | undefined;
    for (const option of def.options as ZodType[]) {
      if (!option.safeParse(value).success) continue;
      const strays = strayFields(option, value, path);
      if (!best || strays.length < best.length) best = strays;
    }
    return best ?? [];
  }
  if (def.type !== "object" || Array.isArray(value)) return [];
  const out: string[] = [];
  for (const [key, v] of Object.entries(value)) {
    const field = def.shape[key] ?? def.catchall;
    if (field === undefined) {
      if (v !== undefined) out.push(join(path, key));
    } else out.push(...strayFields(field, v, join(path, key)));
  }
  return out;
}

const join = (path: string, key: string) => (path ? `${path}.${key}` : key);

interface Issue {
  path: PropertyKey[];
  message: string;
  code?: string;
  errors?: Issue[][];
}

/**
 * A union's issue says only "Invalid input"; the branch that came closest (fewest issues) says which field
 * is wrong, so the report follows it down.
 */
function deepestIssue(issue: Issue | undefined): { path: string[]; message: string } {
  if (!issue) return { path: [], message: "does not match" };
  const here = issue.path.map(String);
  if (issue.code === "invalid_union" && issue.errors?.length) {
    const closest = [...issue.errors].sort((a, b) => a.length - b.length)[0];
    if (closest?.[0]) {
      const inner = deepestIssue(closest[0]);
      return { path: [...here, ...inner.path], message: inner.message };
    }
  }
  return { path: here, message: issue.message };
}

export function contractCheck(app: Pick<OpenAPIHono, "openAPIRegistry">): ContractCheck {
  return {
    check(method, rawPath, status, body) {
      if (body === undefined) return null;
      // The path the router saw: a request's URL drops `.` and `..` segments (`/status/..` is `/`).
      const path = new URL(rawPath.split("?")[0] ?? rawPath, "http://localhost").pathname;
      const entry = routesOf(app).find((r) => r.method === method.toUpperCase() && r.pattern.test(path));
      if (!entry) return null;
      const documented = schemaFor(entry, status);
      const schema = documented ?? (status >= 400 ? (errorEnvelopeSchema as ZodType) : undefined);
      const where = `${method.toUpperCase()} ${entry.template} → ${status}`;
      if (!schema) return `${where}: the document has no JSON answer for this status`;
      const result = schema.safeParse(body);
      if (!result.success) {
        const { path: at, message } = deepestIssue(result.error.issues[0] as Issue | undefined);
        const field = at.length ? at.join(".") : "(the whole answer)";
        return `${where}: field ${field}: ${message} (as documented)`;
      }
      const strays = strayFields(schema, body, "");
      if (strays.length > 0) return `${where}: undocumented field ${strays.slice(0, 5).join(", ")}`;
      return null;
    },
  };
}
