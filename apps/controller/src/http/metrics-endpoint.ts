import { createHash, timingSafeEqual } from "node:crypto";
import { isIP } from "node:net";
import type { Context } from "hono";
import type { Logger } from "pino";
import type { AppEnv } from "./context.js";
import { installCore } from "./core.js";
import { ApiError } from "./errors.js";
import { handleError } from "./errors-handler.js";
import { type Listening, listen } from "./listen.js";
import type { HttpMetrics } from "./metrics.js";
import { notFoundHandler } from "./not-found.js";
import { createRouter } from "./router.js";

const sha256 = (s: string) => createHash("sha256").update(s, "utf8").digest();

/**
 * `GET /metrics` (Prometheus text). With a `token`, the request must carry `Authorization: Bearer <token>`:
 * anything else is 401 `unauthorized` with `WWW-Authenticate: Bearer` (`error="invalid_token"` when a token
 * was sent). The comparison is of SHA-256 digests in constant time, so neither the token's characters nor
 * its length can be learnt from timings.
 */
export function metricsHandler(metrics: HttpMetrics, token: string | undefined) {
  const expected = token === undefined ? undefined : sha256(token);
  return async (c: Context<AppEnv>) => {
    if (expected) {
      const sent = /^Bearer +(\S+) *$/i.exec(c.req.header("authorization") ?? "")?.[1];
      if (sent === undefined) {
        throw new ApiError("unauthorized", "metrics need credentials: send Authorization: Bearer <token>");
      }
      if (!timingSafeEqual(sha256(sent), expected)) {
        throw new ApiError("unauthorized", "invalid metrics token", undefined, {
          "WWW-Authenticate": 'Bearer error="invalid_token"',
        });
      }
    }
    c.header("Content-Type", metrics.contentType);
    c.header("Cache-Control", "no-store");
    return c.body(await metrics.text());
  };
}

/**
 * The separate metrics server of `VANTAGE_METRICS_LISTEN`: `GET /metrics` (with the token when one is set)
 * and nothing else, every other path 404 and other methods 405, in the API's error envelope. Its own
 * requests are not counted in the metrics; the API port then has no `/metrics` at all.
 */
export function listenMetrics(opts: {
  metrics: HttpMetrics;
  token: string | undefined;
  host: string;
  port: number;
  graceMs: number;
  log: Logger;
}): Promise<Listening> {
  const app = createRouter();
  // Request ids and nosniff as on the API port; these requests are neither counted nor access-logged.
  installCore(app, { log: opts.log, accessLog: false, trustedProxies: [] });
  app.get("/metrics", metricsHandler(opts.metrics, opts.token));
  app.notFound(notFoundHandler(() => app.routes));
  app.onError(handleError);
  return listen({ fetch: app.fetch, host: opts.host, port: opts.port, graceMs: opts.graceMs, log: opts.log });
}

/**
 * The warning to log at start when `/metrics` is served unprotected on an API port that binds a non-loopback
 * address (`HOST`), i.e. neither VANTAGE_METRICS_TOKEN nor VANTAGE_METRICS_LISTEN is set; else undefined.
 */
export function publicMetricsWarning(opts: {
  host: string;
  token: string | undefined;
  listen: unknown;
}): string | undefined {
  if (opts.token !== undefined || opts.listen !== undefined || isLoopbackHost(opts.host)) return undefined;
  return (
    `/metrics is public on the API port, which binds ${opts.host} (not loopback): anyone who reaches the port ` +
    "reads it; set VANTAGE_METRICS_TOKEN or VANTAGE_METRICS_LISTEN (docs/operations.md)"
  );
}

/**
 * Whether `host` (the API's `HOST`) can only be reached from this machine: `localhost`, 127.0.0.0/8 and
 * `::1` (also as `::ffff:127.x.x.x`). Any other name or address, `0.0.0.0` and `::` included, may be
 * reachable from elsewhere.
 */
export function isLoopbackHost(host: string): boolean {
  const h = host
    .trim()
    .toLowerCase()
    .replace(/^\[(.*)\]$/, "$1");
  if (h === "localhost") return true;
  if (isIP(h) === 4) return h.startsWith("127.");
  if (isIP(h) === 6) {
    if (/^(0{0,4}:){1,7}0{0,3}1$/.test(h)) return true;
    return /^::ffff:127\.\d+\.\d+\.\d+$/.test(h);
  }
  return false;
}
