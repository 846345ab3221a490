import {
  ipBucket,
  type RateLimitStatus,
  rateLimitedError,
  type SyncedRateLimitStore,
} from "../../http/rate-limit/index.js";

/** Who asks for a probe: an anonymous client (by IP) or an account (any valid credential). */
export type ProbeCaller = { kind: "ip"; ip: string } | { kind: "account"; userId: string };

export const PROBE_QUOTA_WINDOW_MS = 3_600_000;

/**
 * Hourly probe quotas, counted in node-probes (a task on three nodes costs 3), as Globalping counts tests:
 * `anon` per client IP (IPv6 per /64), `auth` per account; 0 means unlimited. A request that does not
 * fit in what is left is refused whole (429) and costs nothing. Counting is local and synchronous; the
 * store shares the counts with other controllers in the background.
 */
export class ProbeQuota {
  constructor(
    private readonly counters: Pick<SyncedRateLimitStore, "addNow" | "getNow">,
    private readonly limits: { anon: number; auth: number },
    private readonly now: () => number = Date.now,
  ) {}

  /** The caller's quota now, without spending any; undefined when unlimited. */
  peek(caller: ProbeCaller): RateLimitStatus | undefined {
    const { limit, bucket, start } = this.where(caller);
    if (limit === 0) return undefined;
    const count = this.counters.getNow(bucket, start);
    return {
      limit,
      count,
      remaining: Math.max(0, limit - count),
      resetAt: start + PROBE_QUOTA_WINDOW_MS,
      exceeded: count >= limit,
    };
  }

  private where(caller: ProbeCaller): { limit: number; bucket: string; start: number } {
    const anonymous = caller.kind === "ip";
    return {
      limit: anonymous ? this.limits.anon : this.limits.auth,
      bucket: anonymous ? `probe:ip:${ipBucket(caller.ip)}` : `probe:account:${caller.userId}`,
      start: Math.floor(this.now() / PROBE_QUOTA_WINDOW_MS) * PROBE_QUOTA_WINDOW_MS,
    };
  }

  /** Takes `cost` node-probes from the caller's quota; undefined when the caller's quota is unlimited. */
  take(caller: ProbeCaller, cost: number): RateLimitStatus | undefined {
    const anonymous = caller.kind === "ip";
    const { limit, bucket, start } = this.where(caller);
    if (limit === 0) return undefined;
    const used = this.counters.getNow(bucket, start);
    const status = (count: number): RateLimitStatus => ({
      limit,
      count,
      remaining: Math.max(0, limit - count),
      resetAt: start + PROBE_QUOTA_WINDOW_MS,
      exceeded: count > limit,
    });
    if (used + cost > limit) {
      throw rateLimitedError(
        [status(used)],
        `probe quota exceeded: this request needs ${cost} node-probes, ${Math.max(0, limit - used)} of ${limit} ` +
          `per hour are left for ${anonymous ? "this address" : "this account"}`,
      );
    }
    return status(this.counters.addNow(bucket, start, PROBE_QUOTA_WINDOW_MS, cost));
  }
}
