import type { MiddlewareHandler } from "hono";
import type { Logger } from "pino";
import { accessLog } from "../logger.js";
import { guardBody } from "./body-guard.js";
import { resolveClientIp } from "./client-ip.js";
import type { AppEnv } from "./context.js";
import { ApiError } from "./errors.js";
import { handleError } from "./errors-handler.js";
import { type HttpMetrics, matchedRoute } from "./metrics.js";
import { assignRequestId } from "./request-id.js";
import { PageHeaders, setNoSniff } from "./security-headers.js";

export interface CoreOptions {
  log: Logger;
  metrics: HttpMetrics;
  accessLog: boolean;
  trustedProxies: readonly string[];
  bodyLimit: number;
}

/**
 * What every request goes through, in one middleware (each extra async layer costs throughput): request
 * id, client IP, security headers, body guard, metrics and the access log.
 *
 * A request this middleware refuses (bad URL, body refused by the guard) is answered here, through the
 * same `handleError` the app's `onError` uses: an error thrown out of this middleware would reach Hono's
 * `onError` only after the `finally` below had run, so the access log and the metrics would record the
 * placeholder 200 instead of the status actually sent. Errors of the handlers after it are turned into
 * responses by `onError` inside `next()`, so `c.res` holds the real status by the time `finally` runs.
 */
export function coreMiddleware(opts: CoreOptions): MiddlewareHandler<AppEnv> {
  const ipOf = resolveClientIp(opts.trustedProxies);
  // Same line as the per-request child logger would write, without building a child for every request.
  const writeAccess = opts.accessLog ? accessLog(opts.log) : undefined;
  const pages = new PageHeaders();
  return async (c, next) => {
    const start = performance.now();
    const requestId = assignRequestId(c, opts.log);
    c.set("clientIp", ipOf(c));
    setNoSniff(c);
    const route = matchedRoute(c.req.matchedRoutes);
    try {
      // A NUL byte in a path or query value could reach PostgreSQL, which cannot store it.
      if (c.req.url.includes("%00")) {
        throw new ApiError("validation_error", "the request URL must not contain %00 (a NUL byte)");
      }
      const m = c.req.method;
      if (m !== "GET" && m !== "HEAD" && m !== "OPTIONS") await guardBody(c, opts.bodyLimit);
      await next();
      if (m === "GET" || m === "HEAD") {
        const securing = pages.apply(c, route);
        if (securing) await securing;
      }
    } catch (thrown) {
      const err = thrown instanceof Error ? thrown : new Error(String(thrown));
      c.error = err;
      c.res = handleError(err, c);
    } finally {
      const ms = performance.now() - start;
      const status = c.res.status;
      const method = c.req.method;
      opts.metrics.observe(method, route, status, ms / 1000);
      if (writeAccess) writeAccess(requestId, method, c.req.path, status, Math.round(ms * 100) / 100);
    }
  };
}
