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
