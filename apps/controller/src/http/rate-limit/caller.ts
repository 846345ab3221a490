import type { Context } from "hono";
import type { AppEnv } from "../context.js";
import { setResponseHeader } from "../response-headers.js";
import type { QuotaCaller } from "./hourly-quota.js";
import type { RateLimitStatus } from "./limiter.js";
import { rateLimitHeaders } from "./responses.js";

/** Whom a quota counts: the account behind the request's credentials, else its client IP. */
export function quotaCallerOf(c: Context<AppEnv>): QuotaCaller {
  const principal = c.get("principal");
  return principal ? { kind: "account", userId: principal.userId } : { kind: "ip", ip: c.get("clientIp") };
}

/** `RateLimit-Limit`, `-Remaining`, `-Reset` of a quota on the response; nothing when unlimited. */
export function setQuotaHeaders(c: Context<AppEnv>, quota: RateLimitStatus | undefined): void {
  if (quota) for (const [k, v] of Object.entries(rateLimitHeaders(quota))) setResponseHeader(c, k, v);
}
