import type { IncomingMessage, ServerResponse } from "node:http";
import type { MiddlewareHandler } from "hono";
import type { Logger } from "pino";
import { accessLog } from "../logger.js";
import { guardBody } from "./body-guard.js";
import { resolveClientIp } from "./client-ip.js";
import type { AppBindings, AppEnv, RequestState } from "./context.js";
import { errorBody } from "./errors.js";
import type { HttpMetrics } from "./metrics.js";
import { requestIdFrom } from "./request-id.js";
import type { Router } from "./router.js";
import { PageHeaders, type SetHeader } from "./security-headers.js";

export interface CoreOptions {
  log: Logger;
  /** Absent: the requests are not counted (the separate metrics server's own). */
  metrics?: HttpMetrics;
  accessLog: boolean;
  trustedProxies: readonly string[];
  /** Request bodies are guarded (JSON, size, shape) up to this many bytes; absent: no route takes one. */
  bodyLimit?: number;
}

/** The methods whose requests may carry a body: only these go through the body guard. */
const BODY_METHODS = ["POST", "PUT", "PATCH", "DELETE"];

/** Route patterns by `METHOD path`, learnt as requests come; cleared when it grows past this. */
const ROUTE_CACHE_MAX = 10_000;

/**
 * What every request goes through: request id, client IP, `nosniff`, the body guard, the page headers of
 * HTML routes, metrics and the access log. Call it on the new router, before any route is registered.
 *
 * It is not Hono middleware. A `"*"` middleware puts every request through Hono's compose (two async
 * frames and their promises) and makes every answer a promise, so @hono/node-server takes its slow path
 * (a close listener per request, the response read through an async function); together that was a third
 * of a small route's throughput. Instead the core wraps `app.fetch`: it does its part before the router
 * runs and after the answer is made, and a route whose handler answers synchronously (`/healthz`,
 * `GET /v1/nodes` with the list in memory) is answered synchronously, as a bare Hono app answers. Only the
 * body guard is middleware, registered for the methods that carry bodies, because it fills Hono's body
 * cache for the validators. `app.request` (tests) goes through the same wrapper.
 *
 * A request the core refuses itself (a URL with `%00`) is answered here in the error envelope. Errors of
 * handlers and of the body guard are turned into responses by the app's `onError` inside the router, so
 * the status the core records is the status sent.
 */
export function installCore(app: Router, opts: CoreOptions): void {
  const { bodyLimit } = opts;
  let guard: MiddlewareHandler<AppEnv> | undefined;
  if (bodyLimit !== undefined) {
    guard = async (c, next) => {
      await guardBody(c, bodyLimit);
      await next();
    };
    app.on(BODY_METHODS, "*", guard);
  }

  const ipOf = resolveClientIp(opts.trustedProxies);
  // Same line as the per-request child logger would write, without building a child for every request.
  const writeAccess = opts.accessLog ? accessLog(opts.log) : undefined;
  const metrics = opts.metrics;
  const pages = new PageHeaders();
  const routes = new Map<string, string>();
  const routeOf = (method: string, path: string): string => {
    const key = `${method} ${path}`;
    let route = routes.get(key);
    if (route === undefined) {
      route = patternOf(app, method === "HEAD" ? "GET" : method, path, guard);
      if (routes.size >= ROUTE_CACHE_MAX) routes.clear();
      routes.set(key, route);
    }
    return route;
  };
  const dispatch = app.fetch;

  app.fetch = (request, env, executionCtx) => {
    const start = performance.now();
    const node = env as NodeBindings | undefined;
    const incoming = node?.incoming;
    const outgoing = node?.outgoing?.setHeader ? node.outgoing : undefined;
    const header = incoming
      ? (name: string) => single(incoming.headers[name])
      : (name: string) => request.headers.get(name) ?? undefined;
    const state = new CoreRequestState(
      requestIdFrom(header("x-request-id")),
      ipOf(incoming?.socket?.remoteAddress, () => header("x-forwarded-for")),
      opts.log,
    );
    // Under Node the bindings object is new for each request; anywhere else it is not ours to change.
    const bindings: AppBindings = outgoing ? (node as AppBindings) : { ...(env as object) };
    bindings.vantage = state;
    if (outgoing) {
      // Node merges these into whatever the handler answers, errors and 404s included.
      outgoing.setHeader("X-Request-Id", state.requestId);
      outgoing.setHeader("X-Content-Type-Options", "nosniff");
    }
    const method = request.method;
    const path = app.getPath(request, { env: bindings });

    const finish = (answer: Response): Response | Promise<Response> => {
      const res = outgoing ? answer : withHeaders(answer, state.requestId);
      const set: SetHeader = outgoing
        ? (name, value) => outgoing.setHeader(name, value)
        : (name, value) => res.headers.set(name, value);
      const route = metrics || method === "GET" || method === "HEAD" ? routeOf(method, path) : "";
      const securing = method === "GET" || method === "HEAD" ? pages.apply(res, route, set) : undefined;
      const record = () => {
        const ms = performance.now() - start;
        metrics?.observe(method, route, res.status, ms / 1000);
        if (writeAccess) writeAccess(state.requestId, method, path, res.status, Math.round(ms * 100) / 100);
        return res;
      };
      return securing ? securing.then(record) : record();
    };
    const failed = (err: unknown): Response | Promise<Response> => {
      opts.log.error({ err, method, path }, "unhandled error");
      return finish(
        errorResponse(
          state.requestId,
          500,
          "internal_error",
          "internal error; quote the request id when reporting it",
        ),
      );
    };

    // A NUL byte in a path or query value could reach PostgreSQL, which cannot store it.
    if (request.url.includes("%00")) {
      return finish(
        errorResponse(
          state.requestId,
          400,
          "validation_error",
          "the request URL must not contain %00 (a NUL byte)",
        ),
      );
    }
    let res: Response | Promise<Response>;
    try {
      res = dispatch(request, bindings, executionCtx);
    } catch (err) {
      return failed(err);
    }
    return res instanceof Promise ? res.then(finish, failed) : finish(res);
  };
}

/** The route pattern `method path` is served by (never the raw path: label cardinality stays bounded). */
function patternOf(app: Router, method: string, path: string, skip: unknown): string {
  const [handlers] = app.router.match(method, path) as unknown as [[[unknown, RouteLike], unknown][]];
  for (let i = handlers.length - 1; i >= 0; i--) {
    const route = handlers[i]![0][1];
    if (route.method !== "ALL" && route.handler !== skip) return route.path;
  }
  return "unmatched";
}

interface RouteLike {
  method: string;
  path: string;
  handler: unknown;
}

class CoreRequestState implements RequestState {
  private child: Logger | undefined;

  constructor(
    readonly requestId: string,
    readonly clientIp: string,
    private readonly parent: Logger,
  ) {}

  get log(): Logger {
    this.child ??= this.parent.child({ request_id: this.requestId });
    return this.child;
  }
}

interface NodeBindings {
  incoming?: IncomingMessage;
  outgoing?: ServerResponse;
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/**
 * Outside Node's server (`app.request`): the answer with the id and nosniff headers, copied first when its
 * headers cannot be changed (`Response.redirect()`, a response passed through from `fetch`).
 */
function withHeaders(answer: Response, requestId: string): Response {
  let res = answer;
  try {
    res.headers.set("X-Request-Id", requestId);
  } catch {
    res = new Response(answer.body, answer);
    res.headers.set("X-Request-Id", requestId);
  }
  res.headers.set("X-Content-Type-Options", "nosniff");
  return res;
}

function errorResponse(
  requestId: string,
  status: number,
  code: Parameters<typeof errorBody>[0],
  message: string,
) {
  return new Response(JSON.stringify(errorBody(code, message, requestId)), {
    status,
    headers: { "Content-Type": "application/json" },
  });
}
