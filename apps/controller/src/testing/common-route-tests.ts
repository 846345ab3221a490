import type { TestApp, TestResponse } from "./test-app.js";

interface Operation {
  security?: Record<string, string[]>[];
  requestBody?: unknown;
}

export interface RouteRef {
  method: string;
  /** OpenAPI path, e.g. `/v1/account/api-keys/{id}`. */
  path: string;
  /** Request path with every `{param}` filled with a dummy id. */
  url: string;
  secured: boolean;
  hasBody: boolean;
}

/** Every operation in the application's OpenAPI document. */
export function routesOf(t: TestApp): RouteRef[] {
  const paths = (t.openapi() as { paths?: Record<string, Record<string, Operation>> }).paths ?? {};
  const out: RouteRef[] = [];
  for (const [path, ops] of Object.entries(paths)) {
    for (const [method, op] of Object.entries(ops)) {
      if (!["get", "post", "put", "patch", "delete"].includes(method)) continue;
      out.push({
        method: method.toUpperCase(),
        path,
        url: path.replace(/\{([^}]+)\}/g, (_, name: string) => `dummy_${name}_0000`),
        // `{}` among the alternatives means credentials are optional: the route is public.
        secured:
          (op.security ?? []).length > 0 && !(op.security ?? []).some((s) => Object.keys(s).length === 0),
        hasBody: op.requestBody !== undefined,
      });
    }
  }
  return out;
}

export interface CommonRouteReport {
  /** `METHOD /path` of every check made. */
  checked: string[];
  /** One line per violation; empty when every route behaves. */
  failures: string[];
}

function describeRes(r: TestResponse): string {
  return `${r.status} ${r.text.slice(0, 160)}`;
}

/**
 * The checks every route gets for free (Unkey's "common route tests"), driven by the OpenAPI document so a
 * new route is covered without a new test:
 * - a route with a non-empty `security` answers a call without credentials with 401, `WWW-Authenticate:
 *   Bearer` and the error envelope;
 * - with a read-only credential, a secured write route (not GET) answers 403 `insufficient_scope` and a
 *   secured GET route is not refused for scope;
 * - a route with a request body answers malformed JSON with 400 `malformed_json` in the envelope;
 * - every route answers a query parameter it does not declare with 400 `unknown_field` naming
 *   `query.<name>` (anonymously on public routes, with the read-only credential on secured reads, with
 *   `writeHeaders` on secured writes when given).
 * Path parameters are filled with dummy ids. Returns the failures, so a test asserts `failures` is empty.
 */
export async function checkCommonRoutes(
  t: TestApp,
  opts: { readOnlyHeaders: Record<string, string>; writeHeaders?: Record<string, string> },
): Promise<CommonRouteReport> {
  const checked: string[] = [];
  const failures: string[] = [];
  for (const r of routesOf(t)) {
    const name = `${r.method} ${r.path}`;
    if (r.secured) {
      checked.push(`${name} without credentials`);
      const anon = await t.call(r.method, r.url);
      const www = anon.headers.get("www-authenticate") ?? "";
      if (
        anon.status !== 401 ||
        !www.startsWith("Bearer") ||
        anon.body?.error?.code !== "unauthorized" ||
        typeof anon.body?.request_id !== "string"
      ) {
        failures.push(
          `${name} without credentials: want 401 unauthorized + WWW-Authenticate: Bearer, got ${describeRes(anon)} (WWW-Authenticate: ${www || "none"})`,
        );
      }
      checked.push(`${name} with a read-only credential`);
      const ro = await t.call(r.method, r.url, {
        headers: opts.readOnlyHeaders,
        ...(r.hasBody ? { body: {} } : {}),
      });
      if (r.method !== "GET") {
        if (ro.status !== 403 || ro.body?.error?.code !== "insufficient_scope") {
          failures.push(
            `${name} with a read-only credential: want 403 insufficient_scope, got ${describeRes(ro)}`,
          );
        }
      } else if (ro.status === 401 || ro.status === 403) {
        failures.push(`${name} with a read-only credential: a read must be allowed, got ${describeRes(ro)}`);
      }
    }
    if (r.hasBody) {
      checked.push(`${name} with malformed JSON`);
      const bad = await t.call(r.method, r.url, { body: "{not json", headers: opts.readOnlyHeaders });
      if (bad.status !== 400 || bad.body?.error?.code !== "malformed_json") {
        failures.push(`${name} with malformed JSON: want 400 malformed_json, got ${describeRes(bad)}`);
      }
    }
    const headers = !r.secured ? {} : r.method === "GET" ? opts.readOnlyHeaders : opts.writeHeaders;
    if (headers) {
      checked.push(`${name} with an unknown query parameter`);
      const odd = await t.call(r.method, `${r.url}?vantage_unknown=1`, {
        headers,
        ...(r.hasBody ? { body: {} } : {}),
      });
      if (
        odd.status !== 400 ||
        odd.body?.error?.code !== "unknown_field" ||
        odd.body?.error?.details?.[0]?.path !== "query.vantage_unknown"
      ) {
        failures.push(
          `${name} with an unknown query parameter: want 400 unknown_field, got ${describeRes(odd)}`,
        );
      }
    }
  }
  return { checked, failures };
}
