import type { MiddlewareHandler } from "hono";
import type { Logger } from "pino";
import { guardBody } from "./body-guard.js";
import { resolveClientIp } from "./client-ip.js";
import type { AppEnv } from "./context.js";
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
  return async (c, next) => {
    const start = performance.now();
    assignRequestId(c, opts.log);
    c.set("clientIp", ipOf(c));
    try {
      const m = c.req.method;
      if (m !== "GET" && m !== "HEAD" && m !== "OPTIONS") await guardBody(c, opts.bodyLimit);
      await next();
    } finally {
      const ms = performance.now() - start;
      const status = c.res.status;
      opts.metrics.observe(c.req.method, matchedRoute(c.req.matchedRoutes), status, ms / 1000);
      if (opts.accessLog) {
        c.get("log").info(
          { method: c.req.method, path: c.req.path, status, ms: Math.round(ms * 100) / 100 },
          "request",
        );
      }
    }
  };
}
