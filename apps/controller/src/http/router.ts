import { OpenAPIHono, z } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import type { ZodError } from "zod";
import { boundsIssues, boundsPlan, trimToBounds } from "./body-bounds.js";
import type { AppEnv } from "./context.js";
import { validationError } from "./errors.js";

/**
 * Route middleware for a JSON body schema (`body-bounds.ts`): 400 `validation_error` when the parsed body
 * exceeds a count or size the schema sets, before the validator looks at any element; undefined when the
 * schema sets none. It runs after the body guard, which has parsed and cached the body (a body that could
 * not be read is left to the validator).
 */
export function bodyBounds(schema: z.ZodType): MiddlewareHandler<AppEnv> | undefined {
  const plan = boundsPlan(schema);
  if (!plan) return undefined;
  return async (c, next) => {
    let body: unknown;
    try {
      body = await c.req.json();
    } catch {
      return next();
    }
    const issues = boundsIssues(body, plan);
    if (issues.length === 0) return next();
    // The body's other problems too, as the validator alone would list them: judged on a copy cut to the
    // bounds, so their cost stays bounded.
    const bounded = new Set(issues.map((i) => i.path.join(".")));
    let rest: z.core.$ZodIssue[] = [];
    try {
      rest = schema.safeParse(trimToBounds(body, plan)).error?.issues ?? [];
    } catch {
      // A schema with asynchronous checks cannot be judged here; the bounds alone are the answer.
    }
    for (const issue of rest) if (!bounded.has(issue.path.join("."))) issues.push(issue);
    throw validationError(new z.ZodError(issues), "json");
  };
}

/** The query parameter names a route's query schema declares (none when it declares no query). */
export function queryNamesOf(schema: unknown): ReadonlySet<string> {
  return new Set(schema instanceof z.ZodObject ? Object.keys(schema.shape) : []);
}

/**
 * 400 `unknown_field` when the request's query string names a parameter not in `names`, with one
 * `query.<name>` detail per unknown parameter (as a strict query schema answers), so a misspelt or
 * other-form parameter (`?limit=` in Form B) is refused instead of silently ignored. A URL without `?`
 * costs one `indexOf`.
 */
export function refuseUnknownQuery(url: string, names: ReadonlySet<string>): void {
  const at = url.indexOf("?");
  if (at === -1) return;
  const unknown = new Set<string>();
  for (const key of new URLSearchParams(url.slice(at + 1)).keys()) if (!names.has(key)) unknown.add(key);
  if (unknown.size === 0) return;
  const keys = [...unknown];
  const issue = { code: "unrecognized_keys" as const, keys, path: [], input: {}, message: "" };
  throw validationError(new z.ZodError([issue]), "query");
}

/** Route middleware: `refuseUnknownQuery` against the route's declared query parameters. */
function queryGuard(schema: unknown): MiddlewareHandler<AppEnv> {
  const names = queryNamesOf(schema);
  return async (c, next) => {
    refuseUnknownQuery(c.req.url, names);
    await next();
  };
}

interface RouteWithBody {
  middleware?: MiddlewareHandler | MiddlewareHandler[];
  request?: { query?: unknown; body?: { content?: Record<string, { schema?: unknown }> } };
}

/**
 * The route with the unknown-query check as its last middleware before the body's (after authentication,
 * so a call without credentials is still a 401): every route refuses query parameters it does not declare.
 */
function withQueryGuard<R extends RouteWithBody>(route: R): R {
  const before = route.middleware === undefined ? [] : [route.middleware].flat();
  return { ...route, middleware: [...before, queryGuard(route.request?.query)] };
}

/** The route with `bodyBounds` of its JSON body schema as its last middleware (after authentication). */
function withBodyBounds<R extends RouteWithBody>(route: R): R {
  const schema = route.request?.body?.content?.["application/json"]?.schema;
  if (!(schema instanceof z.ZodType)) return route;
  const bounds = bodyBounds(schema);
  if (!bounds) return route;
  const before = route.middleware === undefined ? [] : [route.middleware].flat();
  return { ...route, middleware: [...before, bounds] };
}

/**
 * An OpenAPIHono whose validation failures become the API's error envelope, whose routes refuse query
 * parameters they do not declare (400 `unknown_field`), and whose JSON bodies are checked for counts and
 * sizes before their elements are validated.
 */
export function createRouter() {
  const app = new OpenAPIHono<AppEnv>({
    defaultHook: (result) => {
      if (!result.success) {
        throw validationError(
          result.error as unknown as ZodError,
          (result as { target?: string }).target ?? "body",
        );
      }
    },
  });
  const register = app.openapi;
  app.openapi = ((route: RouteWithBody, ...rest: unknown[]) =>
    (register as (...args: unknown[]) => unknown)(
      withBodyBounds(withQueryGuard(route)),
      ...rest,
    )) as typeof app.openapi;
  return app;
}

export type Router = ReturnType<typeof createRouter>;
