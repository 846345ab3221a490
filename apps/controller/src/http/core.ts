import type { IncomingMessage, ServerResponse } from "node:http";
import type { Context, MiddlewareHandler } from "hono";
import type { Logger } from "pino";
import { type AccessLog, accessLog } from "../logger.js";
import { guardBody } from "./body-guard.js";
import { resolveClientIp } from "./client-ip.js";
import { type AppBindings, type AppEnv, clientIpOf, type RequestState } from "./context.js";
import { errorBody } from "./errors.js";
import { carryCoreHeaders } from "./listen.js";
import type { HttpMetrics, RouteSeries } from "./metrics.js";
import { isRefusal, RefusalLimit } from "./rate-limit/refusals.js";
import { requestIdFrom } from "./request-id.js";
import type { Router } from "./router.js";
import { type HeaderTarget, PageHeaders } from "./security-headers.js";

export interface CoreOptions {
  log: Logger;
  /** Absent: the requests are not counted (the separate metrics server's own). */
  metrics?: HttpMetrics;
  accessLog: boolean;
  trustedProxies: readonly string[];
  /** Request bodies are guarded (JSON, size, shape) up to this many bytes; absent: no route takes one. */
  bodyLimit?: number;
  /**
   * Refused requests (400, 413, 415) per client IP and minute; past it, that IP's request bodies are
   * refused with 429 before they are read. Absent or 0: not limited.
   */
  refusedLimit?: number;
}

/** The methods whose requests may carry a body: only these go through the body guard. */
const BODY_METHODS = ["POST", "PUT", "PATCH", "DELETE"];

/** Routes learnt per method (by path) before that method's are forgotten. */
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
  const refusals = opts.refusedLimit ? new RefusalLimit(opts.refusedLimit) : undefined;
  let guard: MiddlewareHandler<AppEnv> | undefined;
  if (bodyLimit !== undefined) {
    guard = async (c, next) => {
      if (refusals && carriesBody(c)) await refusals.check(clientIpOf(c));
      await guardBody(c, bodyLimit);
      await next();
    };
    app.on(BODY_METHODS, "*", guard);
  }

  const core: Core = {
    ipOf: resolveClientIp(opts.trustedProxies),
    // Same line as the per-request child logger would write, without building a child for every request.
    writeAccess: opts.accessLog ? accessLog(opts.log) : undefined,
    metrics: opts.metrics,
    pages: new PageHeaders(),
    log: opts.log,
    routeOf: routeCache(app, guard, opts.metrics),
    refusals,
  };
  cores.set(app, core);
  const dispatch = app.fetch;

  app.fetch = (request, env, executionCtx) => {
    const node = env as NodeBindings | undefined;
    const incoming = node?.incoming;
    const outgoing = incoming && node.outgoing?.setHeader ? node.outgoing : undefined;
    let bindings: AppBindings;
    let exchange: Exchange;
    if (outgoing && incoming) {
      // Under Node the bindings object is new for each request: the state goes on it.
      bindings = node as AppBindings;
      const headers = incoming.headers;
      exchange = new Exchange(
        core,
        requestIdFrom(headers["x-request-id"]),
        request.method,
        app.getPath(request, { env: bindings }),
        incoming.socket?.remoteAddress,
        single(headers["x-forwarded-for"]),
        outgoing,
      );
      // On whatever the handler answers, errors and 404s included: with the answer's own headers when the
      // server is ours (`listen`), else merged in by Node.
      carryCoreHeaders(outgoing, exchange.requestId);
    } else {
      // Anywhere else (`app.request`) the bindings are not ours to change: a copy carries the state.
      bindings = { ...(env as object) };
      exchange = new Exchange(
        core,
        requestIdFrom(request.headers.get("x-request-id") ?? undefined),
        request.method,
        app.getPath(request, { env: bindings }),
        undefined,
        request.headers.get("x-forwarded-for") ?? undefined,
        undefined,
      );
    }
    bindings.vantage = exchange;

    // A NUL byte in a path or query value could reach PostgreSQL, which cannot store it.
    if (request.url.includes("%00")) {
      return exchange.finish(
        errorResponse(
          exchange.requestId,
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
      return exchange.failed(err);
    }
    return res instanceof Promise
      ? res.then(
          (answer) => exchange.finish(answer),
          (err: unknown) => exchange.failed(err),
        )
      : exchange.finish(res);
  };
}

/** The core of each app `installCore` was given: what its direct routes (`direct-routes.ts`) share. */
const cores = new WeakMap<Router, Core>();

/** The core installed on `app`; `installCore` must have run first. */
export function coreOf(app: Router): Core {
  const core = cores.get(app);
  if (!core) throw new Error("installCore(app) first: the core keeps what every request is recorded with");
  return core;
}

/** What the core's requests share: built once by `installCore`. */
export interface Core {
  ipOf: ReturnType<typeof resolveClientIp>;
  writeAccess: AccessLog | undefined;
  metrics: HttpMetrics | undefined;
  pages: PageHeaders;
  log: Logger;
  routeOf: (method: string, path: string) => Route;
  refusals: RefusalLimit | undefined;
}

/** A route as the core knows it: its pattern and, when requests are counted, its series. */
export interface Route {
  pattern: string;
  series: RouteSeries | undefined;
}

/** What a request that no route serves, or one the core does not record by route, is recorded as. */
const NO_ROUTE: Route = { pattern: "", series: undefined };

/**
 * One request as the core sees it, and its state (`c.env.vantage`). A class rather than closures: nothing
 * is allocated per request but this object (and, for an answer that is a promise, its two callbacks).
 */
class Exchange implements RequestState {
  private readonly start = performance.now();
  private child: Logger | undefined;
  private ip: string | undefined;
  taskId: string | undefined = undefined;

  constructor(
    private readonly core: Core,
    readonly requestId: string,
    private readonly method: string,
    private readonly path: string,
    private readonly socketAddress: string | undefined,
    private readonly forwardedFor: string | undefined,
    /** Node's response, when the request came through Node's server. */
    private readonly outgoing: ServerResponse | undefined,
  ) {}

  /** Worked out when first asked for: most routes never ask. */
  get clientIp(): string {
    this.ip ??= this.core.ipOf(this.socketAddress, this.forwardedFor);
    return this.ip;
  }

  get log(): Logger {
    this.child ??= this.core.log.child({ request_id: this.requestId });
    return this.child;
  }

  /** The answer as sent: page headers on HTML, then the metrics and the access log line. */
  finish(answer: Response): Response | Promise<Response> {
    const { method, core } = this;
    const res = this.outgoing ? answer : withHeaders(answer, this.requestId);
    const reading = method === "GET" || method === "HEAD";
    const route = core.metrics || reading ? core.routeOf(method, this.path) : NO_ROUTE;
    const securing = reading
      ? core.pages.apply(res, route.pattern, this.outgoing ?? headersOf(res))
      : undefined;
    return securing ? securing.then(() => this.record(res, route)) : this.record(res, route);
  }

  failed(err: unknown): Response | Promise<Response> {
    this.core.log.error({ err, method: this.method, path: this.path }, "unhandled error");
    return this.finish(
      errorResponse(
        this.requestId,
        500,
        "internal_error",
        "internal error; quote the request id when reporting it",
      ),
    );
  }

  private record(res: Response, route: Route): Response {
    if (this.core.refusals && isRefusal(res.status)) this.core.refusals.record(this.clientIp);
    recordAnswer(
      this.core,
      route,
      this.requestId,
      this.method,
      this.path,
      res.status,
      this.start,
      this.taskId,
    );
    return res;
  }
}

/** A request's answer in the metrics (by route pattern) and the access log; `start` from `performance.now()`. */
export function recordAnswer(
  core: Core,
  route: Route,
  requestId: string,
  method: string,
  path: string,
  status: number,
  start: number,
  taskId?: string,
): void {
  const ms = performance.now() - start;
  route.series?.observe(status, ms / 1000);
  core.writeAccess?.(requestId, method, path, status, ms, taskId);
}

/** Outside Node's server: the page headers go on the `Response` itself. */
function headersOf(res: Response): HeaderTarget {
  return { setHeader: (name, value) => res.headers.set(name, value) };
}

/**
 * Routes by method and path, learnt as requests come; a method's paths are forgotten when they grow past
 * ROUTE_CACHE_MAX. Keyed by method, then path: no key string is built per request.
 */
function routeCache(
  app: Router,
  skip: unknown,
  metrics: HttpMetrics | undefined,
): (method: string, path: string) => Route {
  const byMethod = new Map<string, Map<string, Route>>();
  return (method, path) => {
    let routes = byMethod.get(method);
    if (routes === undefined) {
      routes = new Map();
      byMethod.set(method, routes);
    }
    let route = routes.get(path);
    if (route === undefined) {
      const pattern = patternOf(app, method === "HEAD" ? "GET" : method, path, skip);
      route = { pattern, series: metrics?.route(method, pattern) };
      if (routes.size >= ROUTE_CACHE_MAX) routes.clear();
      routes.set(path, route);
    }
    return route;
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

interface NodeBindings {
  incoming?: IncomingMessage;
  outgoing?: ServerResponse;
}

/** A request that declares a body: a non-zero length, or chunks (outside Node's server: has a body). */
function carriesBody(c: Context<AppEnv>): boolean {
  const length = c.req.header("content-length");
  if (length !== undefined) return length !== "0";
  if (c.req.header("transfer-encoding") !== undefined) return true;
  return !(c.env as NodeBindings | undefined)?.incoming && c.req.raw.body !== null;
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
