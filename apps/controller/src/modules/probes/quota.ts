import type { QuotaCaller, RateLimitStatus } from "../../http/rate-limit/index.js";

/** Who asks for a probe: an anonymous client (by IP) or an account through one credential. */
export type ProbeCaller = QuotaCaller;

export const PROBE_QUOTA_WINDOW_MS = 3_600_000;

/**
 * What probes need of the plans module: hourly limits in node-probes (a task on three nodes costs 3, as
 * Globalping counts tests), per client IP without credentials and per account (its plan's quota) with
 * them, and metering of what was spent.
 */
export interface ProbeLimits {
  /** Takes `cost` node-probes (429 when they do not fit); the limit's state after it, undefined if none. */
  take(caller: ProbeCaller, cost: number): Promise<RateLimitStatus | undefined>;
  /** The hourly limit now, without spending any; undefined when unlimited. */
  peek(caller: ProbeCaller): RateLimitStatus | undefined;
  /** Meters node-probes an account spent. */
  record(caller: ProbeCaller, units: number): void;
}
