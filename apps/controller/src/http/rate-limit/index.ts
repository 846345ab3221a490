/**
 * Fixed-window rate limiting: the limiter and its HTTP side (429, `RateLimit-*` headers, middleware), and
 * where counters live — the shared table (exact), this process (cheap), or this process synced to the
 * table in the background (hot paths such as probe quotas).
 */
export { consumeAll, giveBack, mailboxBucket } from "./all-or-none.js";
export { quotaCallerOf, setQuotaHeaders } from "./caller.js";
export { dbRateLimitStore } from "./db-store.js";
export { ipBucket } from "./ip-bucket.js";
export { RateLimiter, type RateLimitRule, type RateLimitStatus, type RateLimitStore } from "./limiter.js";
export { memoryRateLimitStore } from "./memory-store.js";
export {
  Quota,
  type QuotaCaller,
  type QuotaKind,
  type QuotaRule,
  type QuotaWindow,
  quotaWindows,
  type RuleStatus,
} from "./quota.js";
export { RefusalLimit } from "./refusals.js";
export { rateLimit, rateLimitedError, rateLimitHeaders } from "./responses.js";
export { type SyncedRateLimitStore, syncedRateLimitStore } from "./synced-store.js";
