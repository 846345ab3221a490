import { ipBucket } from "./ip-bucket.js";
import type { RateLimitStatus } from "./limiter.js";
import { rateLimitedError } from "./responses.js";
import type { SyncedRateLimitStore } from "./synced-store.js";

/** Who is counted: an anonymous client (by IP) or an account (any valid credential). */
export type QuotaCaller = { kind: "ip"; ip: string } | { kind: "account"; userId: string };

export const QUOTA_WINDOW_MS = 3_600_000;

/** What a quota counts, for its counters' names and its 429 message. */
export interface QuotaKind {
  /** Prefix of the counters' buckets, e.g. `probe` → `probe:ip:…`, `probe:account:…`. */
  name: string;
  /** What one unit is, e.g. `node-probes`, `lookups`. */
  unit: string;
}

/**
 * Hourly quotas: `anon` per client IP (IPv6 per /64), `auth` per account; 0 means unlimited. A request
 * that does not fit in what is left is refused whole (429) and costs nothing. Counting is local and
 * synchronous; the store shares the counts with other controllers in the background.
 */
export class HourlyQuota {
  constructor(
    private readonly kind: QuotaKind,
    private readonly counters: Pick<SyncedRateLimitStore, "addNow" | "getNow">,
    private readonly limits: { anon: number; auth: number },
    private readonly now: () => number = Date.now,
  ) {}

  /** The caller's quota now, without spending any; undefined when unlimited. */
  peek(caller: QuotaCaller): RateLimitStatus | undefined {
    const { limit, bucket, start } = this.where(caller);
    if (limit === 0) return undefined;
    const count = this.counters.getNow(bucket, start);
    return {
      limit,
      count,
      remaining: Math.max(0, limit - count),
      resetAt: start + QUOTA_WINDOW_MS,
      exceeded: count >= limit,
    };
  }

  /** Takes `cost` units from the caller's quota; undefined when the caller's quota is unlimited. */
  take(caller: QuotaCaller, cost: number): RateLimitStatus | undefined {
    const anonymous = caller.kind === "ip";
    const { limit, bucket, start } = this.where(caller);
    if (limit === 0) return undefined;
    const used = this.counters.getNow(bucket, start);
    const status = (count: number): RateLimitStatus => ({
      limit,
      count,
      remaining: Math.max(0, limit - count),
      resetAt: start + QUOTA_WINDOW_MS,
      exceeded: count > limit,
    });
    if (used + cost > limit) {
      throw rateLimitedError(
        [status(used)],
        `${this.kind.name} quota exceeded: this request needs ${cost} ${this.kind.unit}, ` +
          `${Math.max(0, limit - used)} of ${limit} per hour are left for ${anonymous ? "this address" : "this account"}`,
      );
    }
    return status(this.counters.addNow(bucket, start, QUOTA_WINDOW_MS, cost));
  }

  private where(caller: QuotaCaller): { limit: number; bucket: string; start: number } {
    const anonymous = caller.kind === "ip";
    const name = this.kind.name;
    return {
      limit: anonymous ? this.limits.anon : this.limits.auth,
      bucket: anonymous ? `${name}:ip:${ipBucket(caller.ip)}` : `${name}:account:${caller.userId}`,
      start: Math.floor(this.now() / QUOTA_WINDOW_MS) * QUOTA_WINDOW_MS,
    };
  }
}
