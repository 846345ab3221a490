import type { MiddlewareHandler } from "hono";
import type { Logger } from "pino";
import { accessLog } from "../logger.js";
import { guardBody } from "./body-guard.js";
import { resolveClientIp } from "./client-ip.js";
import type { AppEnv } from "./context.js";
import { ApiError } from "./errors.js";
import { type HttpMetrics, matchedRoute } from "./metrics.js";
import { assignRequestId } from "./request-id.js";

export interface CoreOptions {
  log: Logger;
  metrics: HttpMetrics;
  accessLog: boolean;
  trustedProxies: readonly string[];
  bodyLimit: number;
}

/**
 * What every request goes through, in one middleware (each extra async layer costs throughput): request
 * id, client IP, body guard, metrics and the access log.
 */
export function coreMiddleware(opts: CoreOptions): MiddlewareHandler<AppEnv> {
  const ipOf = resolveClientIp(opts.trustedProxies);
  // Same line as the per-request child logger would write, without building a child for every request.
  const writeAccess = opts.accessLog ? accessLog(opts.log) : undefined;
  return async (c, next) => {
    const start = performance.now();
    const requestId = assignRequestId(c, opts.log);
    c.set("clientIp", ipOf(c));
    try {
      // A NUL byte in a path or query value could reach PostgreSQL, which cannot store it.
      if (c.req.url.includes("%00")) {
        throw new ApiError("validation_error", "the request URL must not contain %00 (a NUL byte)");
      }
      const m = c.req.method;
      if (m !== "GET" && m !== "HEAD" && m !== "OPTIONS") await guardBody(c, opts.bodyLimit);
      await next();
    } finally {
      const ms = performance.now() - start;
      const status = c.res.status;
      const method = c.req.method;
      opts.metrics.observe(method, matchedRoute(c.req.matchedRoutes), status, ms / 1000);
      if (writeAccess) writeAccess(requestId, method, c.req.path, status, Math.round(ms * 100) / 100);
    }
  };
}
