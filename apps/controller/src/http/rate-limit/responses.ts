import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../context.js";
import { ApiError } from "../errors.js";
import type { RateLimiter, RateLimitStatus } from "./limiter.js";

/** `RateLimit-*` headers (IETF draft) for a status. */
export function rateLimitHeaders(s: RateLimitStatus, now = Date.now()): Record<string, string> {
  return {
    "RateLimit-Limit": String(s.limit),
    "RateLimit-Remaining": String(s.remaining),
    "RateLimit-Reset": String(Math.max(0, Math.ceil((s.resetAt - now) / 1000))),
  };
}

/** 429 `rate_limited` with `Retry-After` (whole seconds) for the longest-blocked of the given statuses. */
export function rateLimitedError(statuses: RateLimitStatus[], message = "too many requests"): ApiError {
  const now = Date.now();
  const worst = statuses.reduce((a, b) => (b.resetAt > a.resetAt ? b : a));
  const retryAfter = Math.max(1, Math.ceil((worst.resetAt - now) / 1000));
  return new ApiError(
    "rate_limited",
    `${message}; retry after ${retryAfter} s`,
    { retry_after_s: retryAfter },
    { "Retry-After": String(retryAfter), ...rateLimitHeaders(worst, now) },
  );
}

/**
 * Middleware: one hit per request on the key `keyOf(c)` returns (none → not limited). Sets `RateLimit-*`
 * headers and answers 429 over the limit. Typical keys: `clientIpOf(c)` through `ipBucket`, or the
 * principal's credential id.
 */
export function rateLimit(
  limiter: RateLimiter,
  keyOf: (c: Parameters<MiddlewareHandler<AppEnv>>[0]) => string | undefined,
): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const key = keyOf(c);
    if (key === undefined) return next();
    const s = await limiter.consume(key);
    if (s.exceeded) throw rateLimitedError([s]);
    await next();
    for (const [k, v] of Object.entries(rateLimitHeaders(s))) c.res.headers.set(k, v);
  };
}
