import { OpenAPIHono, z } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import type { ZodError } from "zod";
import { boundsIssues, boundsPlan, trimToBounds } from "./body-bounds.js";
import type { AppEnv } from "./context.js";
import { ApiError } from "./errors.js";

interface IssueLike {
  code: string;
  path: PropertyKey[];
  message: string;
  keys?: string[];
  expected?: string;
}

/**
 * A number read from text (query fields, `z.coerce.number()`) that is not one: zod says what the coercion
 * made of it ("received NaN", "received Infinity"), and "expected int, received number" for a fraction,
 * neither of which the caller sent. Plain words instead; every other message is zod's.
 */
function messageOf(issue: IssueLike): string {
  if (issue.code !== "invalid_type") return issue.message;
  if (issue.expected === "int") return "expected a whole number";
  if (issue.expected === "number" && /received (NaN|Infinity|-Infinity)$/.test(issue.message)) {
    return "expected a number";
  }
  return issue.message;
}

/** Where a value came from, as the first segment of a detail path names it. */
const targetNames: Record<string, string> = {
  json: "body",
  form: "body",
  param: "path",
  query: "query",
  header: "header",
};

/** At most this many `details` entries, plus one saying how many more there were. */
export const MAX_ERROR_DETAILS = 20;

/**
 * Turns zod issues into `{path, message}` details, paths prefixed with where the value came from: one per
 * problem (each unknown key of an `unrecognized_keys` issue is one), the first `MAX_ERROR_DETAILS` of them,
 * then `{path: <target>, message: "… and N more issues"}` when there were more, so a body with 10,000
 * unknown keys gets a short answer, not a megabyte of them.
 */
export function issuesToDetails(error: ZodError, rawTarget: string) {
  const target = targetNames[rawTarget] ?? rawTarget;
  const details: { path: string; message: string }[] = [];
  let more = 0;
  for (const issue of error.issues as unknown as IssueLike[]) {
    const unknownKeys = issue.code === "unrecognized_keys" && issue.keys ? issue.keys : undefined;
    const count = unknownKeys ? unknownKeys.length : 1;
    const room = MAX_ERROR_DETAILS - details.length;
    if (room <= 0) {
      more += count;
      continue;
    }
    const base = [target, ...issue.path.map(String)].join(".");
    if (unknownKeys) {
      for (const key of unknownKeys.slice(0, room))
        details.push({ path: `${base}.${key}`, message: "unknown field" });
      more += Math.max(0, unknownKeys.length - room);
    } else {
      details.push({ path: base, message: messageOf(issue) });
    }
  }
  if (more > 0)
    details.push({ path: target, message: `… and ${more} more ${more === 1 ? "issue" : "issues"}` });
  return details;
}

export function validationError(error: ZodError, target: string): ApiError {
  const details = issuesToDetails(error, target);
  // The code follows the first issue, which the message names too; `details` lists the first ones.
  const unknown = (error.issues as unknown as IssueLike[])[0]?.code === "unrecognized_keys";
  const first = details[0];
  const summary = first ? `${first.path}: ${first.message}` : "invalid request";
  return new ApiError(unknown ? "unknown_field" : "validation_error", summary, details);
}

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

interface RouteWithBody {
  middleware?: MiddlewareHandler | MiddlewareHandler[];
  request?: { body?: { content?: Record<string, { schema?: unknown }> } };
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
 * An OpenAPIHono whose validation failures become the API's error envelope, and whose JSON bodies are
 * checked for counts and sizes before their elements are validated.
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
    (register as (...args: unknown[]) => unknown)(withBodyBounds(route), ...rest)) as typeof app.openapi;
  return app;
}

export type Router = ReturnType<typeof createRouter>;
