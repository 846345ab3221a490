import type { Context } from "hono";
import { type AppEnv, clientIpOf } from "../context.js";
import { setResponseHeader } from "../response-headers.js";
import type { RateLimitStatus } from "./limiter.js";
import type { QuotaCaller } from "./quota.js";
import { rateLimitHeaders } from "./responses.js";

/** Whom a quota counts: the account (and credential) behind the request's credentials, else its client IP. */
export function quotaCallerOf(c: Context<AppEnv>): QuotaCaller {
  const p = c.get("principal");
  return p
    ? { kind: "account", userId: p.userId, plan: p.plan, credentialId: p.credentialId }
    : { kind: "ip", ip: clientIpOf(c) };
}

/** `RateLimit-Limit`, `-Remaining`, `-Reset` of a quota on the response; nothing when unlimited. */
export function setQuotaHeaders(c: Context<AppEnv>, quota: RateLimitStatus | undefined): void {
  if (quota) for (const [k, v] of Object.entries(rateLimitHeaders(quota))) setResponseHeader(c, k, v);
}
