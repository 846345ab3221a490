import {
  HourlyQuota,
  QUOTA_WINDOW_MS,
  type QuotaCaller,
  type SyncedRateLimitStore,
} from "../../http/rate-limit/index.js";

/** Who asks for a probe: an anonymous client (by IP) or an account (any valid credential). */
export type ProbeCaller = QuotaCaller;

export const PROBE_QUOTA_WINDOW_MS = QUOTA_WINDOW_MS;

/**
 * Hourly probe quotas, counted in node-probes (a task on three nodes costs 3), as Globalping counts tests:
 * `anon` per client IP (IPv6 per /64), `auth` per account; 0 means unlimited.
 */
export class ProbeQuota extends HourlyQuota {
  constructor(
    counters: Pick<SyncedRateLimitStore, "addNow" | "getNow">,
    limits: { anon: number; auth: number },
    now: () => number = Date.now,
  ) {
    super({ name: "probe", unit: "node-probes" }, counters, limits, now);
  }
}
