import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from "node:http";
import { coreOf, recordAnswer } from "./core.js";
import { carryCoreHeaders } from "./listen.js";
import { requestIdFrom } from "./request-id.js";
import type { Router } from "./router.js";

/** A direct route's answer: sent as it is, with the request id and `nosniff` the core adds to every answer. */
export interface DirectAnswer {
  status: number;
  /** The body's `Content-Type`. */
  type: string;
  body: string;
  /** More headers of the answer (an `ETag`). */
  headers?: Record<string, string>;
}

/** More of the request, for a route registered with `{ query: true }`. */
export interface DirectRequest {
  /** The raw query string after `?` (not decoded; "" when there is none). */
  query: string;
  /** The client's address as the router's `clientIpOf` gives it (the socket's peer, or a trusted proxy's client). */
  clientIp(): string;
}

/**
 * Makes the answer to a GET (or HEAD) of the route's exact path, with no query string (unless registered
 * with `{ query: true }`), for the request with this id and these headers; `undefined` hands the request to
 * the router (e.g. while the data is not in memory, or when the request carries credentials the router must
 * check, or a query it must validate). It runs synchronously and should not throw: one that does is logged
 * and the router answers instead.
 */
export type DirectRoute = (
  requestId: string,
  headers: IncomingHttpHeaders,
  request: DirectRequest,
) => DirectAnswer | undefined;

/** The direct routes of each app, by exact path; `query`: those that also take a query string. */
const routesOf = new WeakMap<Router, { exact: Map<string, DirectRoute>; query: Map<string, DirectRoute> }>();

/**
 * Answers GET and HEAD of `path` (exactly, no query string; with `query: true` also with one, which the
 * route reads and hands to the router unless it is one it can answer) from `route` under Node's server,
 * before the router: no `Request` or `Response` object is made, the headers go out in one `writeHead`. For the routes
 * a busy deployment is polled on (`/healthz` by load balancers, `GET /v1/nodes` by dashboards), whose
 * answer is prepared in memory; the router's work was most of what they cost (ADR 0002, later section).
 *
 * The route must also be registered on the router with the same answer: it serves every request this
 * does not (a query string, `app.request` in tests, a `route` that answers `undefined`) and documents the
 * route in OpenAPI. The core records a direct answer as a routed one: the same metrics series (the route's
 * pattern) and access-log line. Call after `installCore(app)`.
 */
export function directRoute(
  app: Router,
  path: string,
  route: DirectRoute,
  opts: { query?: boolean } = {},
): void {
  coreOf(app);
  let routes = routesOf.get(app);
  if (routes === undefined) {
    routes = { exact: new Map(), query: new Map() };
    routesOf.set(app, routes);
  }
  routes.exact.set(path, route);
  if (opts.query) routes.query.set(path, route);
}

/**
 * What Node's server calls for each request before the router (`listen`'s `direct`): true when a direct
 * route answered it.
 */
export function directListener(app: Router): (req: IncomingMessage, res: ServerResponse) => boolean {
  const core = coreOf(app);
  const { exact, query: withQuery } = routesOf.get(app) ?? { exact: new Map(), query: new Map() };
  return (req, res) => {
    const method = req.method;
    if (method !== "GET" && method !== "HEAD") return false;
    const url = req.url ?? "";
    let path = url;
    let query = "";
    let route = exact.get(url);
    if (route === undefined) {
      if (withQuery.size === 0) return false;
      const mark = url.indexOf("?");
      if (mark < 0) return false;
      path = url.slice(0, mark);
      route = withQuery.get(path);
      if (route === undefined) return false;
      query = url.slice(mark + 1);
    }
    const start = performance.now();
    const requestId = requestIdFrom(req.headers["x-request-id"]);
    const request: DirectRequest = {
      query,
      clientIp: () => core.ipOf(req.socket?.remoteAddress, single(req.headers["x-forwarded-for"])),
    };
    let answer: DirectAnswer | undefined;
    try {
      answer = route(requestId, req.headers, request);
    } catch (err) {
      core.log.error({ err, method, path, request_id: requestId }, "direct route failed: the router answers");
      return false;
    }
    if (answer === undefined) return false;
    carryCoreHeaders(res, requestId);
    res.writeHead(answer.status, {
      ...answer.headers,
      "Content-Type": answer.type,
      "Content-Length": Buffer.byteLength(answer.body),
    });
    // Node sends no body for HEAD whatever `end` is given.
    res.end(answer.body);
    recordAnswer(core, core.routeOf(method, path), requestId, method, path, answer.status, start);
    return true;
  };
}

/** As the core reads the header (`core.ts`). */
function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
