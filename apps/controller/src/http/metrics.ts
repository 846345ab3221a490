import type { MiddlewareHandler } from "hono";
import { Counter, collectDefaultMetrics, Histogram, Registry } from "prom-client";
import type { AppEnv } from "./context.js";

export class HttpMetrics {
  readonly registry = new Registry();
  private readonly requests = new Counter({
    name: "vantage_http_requests_total",
    help: "HTTP requests by method, route and status",
    labelNames: ["method", "route", "status"] as const,
    registers: [this.registry],
  });
  private readonly duration = new Histogram({
    name: "vantage_http_request_duration_seconds",
    help: "HTTP request latency by method, route and status",
    labelNames: ["method", "route", "status"] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [this.registry],
  });

  constructor(defaults = true) {
    if (defaults) collectDefaultMetrics({ register: this.registry, prefix: "vantage_" });
  }

  middleware(): MiddlewareHandler<AppEnv> {
    return async (c, next) => {
      const start = process.hrtime.bigint();
      try {
        await next();
      } finally {
        const route = matchedRoute(c.req.matchedRoutes);
        const labels = { method: c.req.method, route, status: String(c.res.status) };
        this.requests.inc(labels);
        this.duration.observe(labels, Number(process.hrtime.bigint() - start) / 1e9);
      }
    };
  }

  text(): Promise<string> {
    return this.registry.metrics();
  }
}

/** The route pattern that handled the request (never the raw path, so label cardinality stays bounded). */
function matchedRoute(routes: { method: string; path: string }[]): string {
  for (let i = routes.length - 1; i >= 0; i--) {
    const r = routes[i]!;
    if (r.method !== "ALL") return r.path;
  }
  return "unmatched";
}
