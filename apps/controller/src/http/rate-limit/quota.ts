import { ApiError } from "../errors.js";
import { ipBucket } from "./ip-bucket.js";
import type { RateLimitStatus } from "./limiter.js";
import { rateLimitHeaders } from "./responses.js";
import type { SyncedRateLimitStore } from "./synced-store.js";

/**
 * Who is counted: an anonymous client (by IP), or an account through one credential (API key, access
 * token or login session) with the account's plan as the credential check saw it.
 */
export type QuotaCaller =
  | { kind: "ip"; ip: string }
  | { kind: "account"; userId: string; plan: string; credentialId: string };

export const quotaWindows = { minute: 60_000, hour: 3_600_000, day: 86_400_000 } as const;
export type QuotaWindow = keyof typeof quotaWindows;

/** One limit that applies to a caller: so many units per window, counted per IP, credential or account. */
export interface QuotaRule {
  window: QuotaWindow;
  limit: number;
  per: "ip" | "credential" | "account";
  /** `rate_limited` for short-window limits and anonymous callers; `quota_exceeded` for a plan's quota. */
  code: "rate_limited" | "quota_exceeded";
  /** Named in the 429 message, e.g. "the free plan". */
  source?: string;
}

/** What a quota counts, for its counters' names and its messages. */
export interface QuotaKind {
  /** Prefix of the counters' buckets, e.g. `probe` → `probe:hour:ip:…`. */
  name: string;
  /** What one unit is, e.g. `node-probes`, `lookups`. */
  unit: string;
}

export interface RuleStatus extends RateLimitStatus {
  rule: QuotaRule;
}

type Counters = Pick<SyncedRateLimitStore, "addNow" | "getNow" | "ensure">;

/**
 * Every limit of one family of calls (probes, lookups, reputation): the rules a caller meets come from
 * `rulesOf` (the plan table); a request that does not fit in any of them is refused whole (429) and costs
 * nothing. Counting is local; the store shares counts with the other controllers in the background, and a
 * bucket this process has not seen in the current window is read from the shared table first (once).
 */
export class Quota {
  constructor(
    readonly kind: QuotaKind,
    private readonly counters: Counters,
    private readonly rulesOf: (caller: QuotaCaller) => readonly QuotaRule[],
    private readonly now: () => number = Date.now,
  ) {}

  /** The state of each rule that applies to the caller, without spending anything ([] when unlimited). */
  peek(caller: QuotaCaller): RuleStatus[] {
    const t = this.now();
    return this.rulesOf(caller).map((rule) => {
      const { bucket, start } = this.where(caller, rule, t);
      return this.status(rule, start, this.counters.getNow(bucket, start), true);
    });
  }

  /** `peek` once every rule's counter has been read from the shared table (routes that show usage). */
  async read(caller: QuotaCaller): Promise<RuleStatus[]> {
    await this.prime(caller, this.rulesOf(caller), this.now());
    return this.peek(caller);
  }

  /**
   * Refuses (429) a caller with nothing left under some rule, before the request is even read: a caller
   * over its limit learns that first, whatever else is wrong with the request. Costs nothing.
   */
  async gate(caller: QuotaCaller): Promise<void> {
    const rules = this.rulesOf(caller);
    if (rules.length === 0) return;
    const t = this.now();
    await this.prime(caller, rules, t);
    this.placeOrRefuse(caller, rules, 1, t);
  }

  /**
   * Takes `cost` units under every rule; returns the tightest rule's status after it (for `RateLimit-*`),
   * undefined when no rule applies. Throws 429 `rate_limited` or `quota_exceeded` when one does not fit.
   */
  async take(caller: QuotaCaller, cost: number): Promise<RateLimitStatus | undefined> {
    const rules = this.rulesOf(caller);
    if (rules.length === 0) return undefined;
    const t = this.now();
    await this.prime(caller, rules, t);
    const placed = this.placeOrRefuse(caller, rules, cost, t);
    let tightest: RateLimitStatus | undefined;
    for (const p of placed) {
      const count = this.counters.addNow(p.bucket, p.start, quotaWindows[p.rule.window], cost);
      const s = this.status(p.rule, p.start, count, false);
      if (!tightest || s.remaining < tightest.remaining) tightest = s;
    }
    return tightest;
  }

  /**
   * `take` without a promise, for a direct route (http/direct-routes.ts): the status as `take` gives it,
   * or `false` when it cannot be answered synchronously (a bucket not yet read from the shared table, whose
   * read this starts) or the caller does not fit (nothing taken): the caller then goes the way of `take`,
   * which answers the same 429.
   */
  takeNow(caller: QuotaCaller, cost: number): RateLimitStatus | undefined | false {
    const rules = this.rulesOf(caller);
    if (rules.length === 0) return undefined;
    const t = this.now();
    let pending = false;
    for (const rule of rules) {
      const { bucket, start } = this.where(caller, rule, t);
      const wait = this.counters.ensure(bucket, start, quotaWindows[rule.window]);
      if (wait) {
        pending = true;
        wait.catch(() => {});
      }
    }
    if (pending) return false;
    let placed: ReturnType<Quota["placeOrRefuse"]>;
    try {
      placed = this.placeOrRefuse(caller, rules, cost, t);
    } catch {
      return false;
    }
    let tightest: RateLimitStatus | undefined;
    for (const p of placed) {
      const count = this.counters.addNow(p.bucket, p.start, quotaWindows[p.rule.window], cost);
      const s = this.status(p.rule, p.start, count, false);
      if (!tightest || s.remaining < tightest.remaining) tightest = s;
    }
    return tightest;
  }

  /**
   * Where each rule counts the caller; throws the refusal when `cost` does not fit under one of them (the
   * limit that keeps the caller out longest decides the code and Retry-After).
   */
  private placeOrRefuse(caller: QuotaCaller, rules: readonly QuotaRule[], cost: number, t: number) {
    const placed = rules.map((rule) => ({ rule, ...this.where(caller, rule, t) }));
    let worst: { rule: QuotaRule; start: number; used: number } | undefined;
    for (const p of placed) {
      const used = this.counters.getNow(p.bucket, p.start);
      if (used + cost <= p.rule.limit) continue;
      if (!worst || p.start + quotaWindows[p.rule.window] > worst.start + quotaWindows[worst.rule.window])
        worst = { rule: p.rule, start: p.start, used };
    }
    if (worst)
      throw this.refusal(
        caller,
        worst.rule,
        this.status(worst.rule, worst.start, worst.used, false),
        cost,
        t,
      );
    return placed;
  }

  private async prime(caller: QuotaCaller, rules: readonly QuotaRule[], t: number): Promise<void> {
    const waits: Promise<void>[] = [];
    for (const rule of rules) {
      const { bucket, start } = this.where(caller, rule, t);
      const w = this.counters.ensure(bucket, start, quotaWindows[rule.window]);
      if (w) waits.push(w);
    }
    if (waits.length > 0) await Promise.all(waits);
  }

  private where(caller: QuotaCaller, rule: QuotaRule, t: number): { bucket: string; start: number } {
    const windowMs = quotaWindows[rule.window];
    const who =
      caller.kind === "ip"
        ? `ip:${ipBucket(caller.ip)}`
        : rule.per === "credential"
          ? `cred:${caller.credentialId}`
          : `account:${caller.userId}`;
    return { bucket: `${this.kind.name}:${rule.window}:${who}`, start: Math.floor(t / windowMs) * windowMs };
  }

  private status(rule: QuotaRule, start: number, count: number, peeking: boolean): RuleStatus {
    return {
      rule,
      limit: rule.limit,
      count,
      remaining: Math.max(0, rule.limit - count),
      resetAt: start + quotaWindows[rule.window],
      exceeded: peeking ? count >= rule.limit : count > rule.limit,
    };
  }

  private refusal(caller: QuotaCaller, rule: QuotaRule, s: RuleStatus, cost: number, t: number): ApiError {
    const retryAfter = Math.max(1, Math.ceil((s.resetAt - t) / 1000));
    const whose =
      caller.kind === "ip" ? "this address" : rule.per === "credential" ? "this API key" : "this account";
    const what = `${rule.limit} ${this.kind.unit} per ${rule.window}`;
    const left = Math.max(0, rule.limit - s.count);
    const message =
      rule.code === "quota_exceeded"
        ? `quota exceeded: ${rule.source ?? "the plan"} allows ${what} for ${whose}; this request needs ` +
          `${cost}, ${left} left; it starts afresh in ${retryAfter} s (a larger plan raises it)`
        : `rate limited: ${what} for ${whose}; this request needs ${cost}, ${left} left; retry after ${retryAfter} s`;
    return new ApiError(
      rule.code,
      message,
      {
        limit: rule.limit,
        window: rule.window,
        per: caller.kind === "ip" ? "ip" : rule.per,
        retry_after_s: retryAfter,
      },
      { "Retry-After": String(retryAfter), ...rateLimitHeaders(s, t) },
    );
  }
}
