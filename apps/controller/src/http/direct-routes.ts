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

/**
 * Makes the answer to a GET (or HEAD) of the route's exact path, with no query string, for the request
 * with this id and these headers; `undefined` hands the request to the router (e.g. while the data is not in
 * memory, or when the request carries credentials the router must check). It runs synchronously and should
 * not throw: one that does is logged and the router answers instead.
 */
export type DirectRoute = (requestId: string, headers: IncomingHttpHeaders) => DirectAnswer | undefined;

/** The direct routes of each app, by exact path. */
const routesOf = new WeakMap<Router, Map<string, DirectRoute>>();

/**
 * Answers GET and HEAD of `path` (exactly, no query string) from `route` under Node's server, before the
 * router: no `Request` or `Response` object is made, the headers go out in one `writeHead`. For the routes
 * a busy deployment is polled on (`/healthz` by load balancers, `GET /v1/nodes` by dashboards), whose
 * answer is prepared in memory; the router's work was most of what they cost (ADR 0002, later section).
 *
 * The route must also be registered on the router with the same answer: it serves every request this
 * does not (a query string, `app.request` in tests, a `route` that answers `undefined`) and documents the
 * route in OpenAPI. The core records a direct answer as a routed one: the same metrics series (the route's
 * pattern) and access-log line. Call after `installCore(app)`.
 */
export function directRoute(app: Router, path: string, route: DirectRoute): void {
  coreOf(app);
  let routes = routesOf.get(app);
  if (routes === undefined) {
    routes = new Map();
    routesOf.set(app, routes);
  }
  routes.set(path, route);
}

/**
 * What Node's server calls for each request before the router (`listen`'s `direct`): true when a direct
 * route answered it.
 */
export function directListener(app: Router): (req: IncomingMessage, res: ServerResponse) => boolean {
  const core = coreOf(app);
  const routes = routesOf.get(app) ?? new Map<string, DirectRoute>();
  return (req, res) => {
    const method = req.method;
    if (method !== "GET" && method !== "HEAD") return false;
    const path = req.url ?? "";
    const route = routes.get(path);
    if (route === undefined) return false;
    const start = performance.now();
    const requestId = requestIdFrom(req.headers["x-request-id"]);
    let answer: DirectAnswer | undefined;
    try {
      answer = route(requestId, req.headers);
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
