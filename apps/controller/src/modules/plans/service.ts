import type { MiddlewareHandler } from "hono";
import { type Kysely, sql } from "kysely";
import type { Database } from "../../db/schema.js";
import type { AppEnv } from "../../http/context.js";
import {
  Quota,
  type QuotaCaller,
  quotaCallerOf,
  type RateLimitStatus,
  type RuleStatus,
  type SyncedRateLimitStore,
} from "../../http/rate-limit/index.js";
import { type PlanLimits, type PlanName, type PlanRow, planOf } from "../../lib/plans.js";
import { familyKinds, planRules, type UsageFamily, usageFamilies } from "./families.js";
import { type UsageMeter, utcDay } from "./meter.js";

/** An account's use this period and where it stands against its limits. */
export interface UsageReport {
  plan: PlanName;
  /** The metering period: the current calendar month, UTC (billing's period until billing says otherwise). */
  period: { start: string; end: string };
  usage: { family: UsageFamily; unit: string; units: number; calls: number; today_units: number }[];
  limits: (RuleStatus & { family: UsageFamily })[];
  plan_limits: PlanLimits;
}

export interface PlansService {
  /**
   * Takes `cost` units of `family` from every limit the caller meets (per IP, per credential, per account);
   * returns the tightest limit's state after it (RateLimit-* headers), undefined when none applies. Throws
   * 429 `rate_limited` or `quota_exceeded` when the request does not fit; a refused request costs nothing.
   */
  charge(family: UsageFamily, caller: QuotaCaller, cost: number): Promise<RateLimitStatus | undefined>;
  /**
   * `charge` without a promise (direct routes): `false` when it cannot tell synchronously or the call does
   * not fit, nothing taken; `charge` then answers (and refuses) as always.
   */
  chargeNow(family: UsageFamily, caller: QuotaCaller, cost: number): RateLimitStatus | undefined | false;
  /**
   * Route middleware (after the auth middleware): 429 at once for a caller with nothing left of `family`,
   * before the request is validated. Every limited route has it, and says so in its OpenAPI entry
   * (`x-vantage-limit`).
   */
  gate(family: UsageFamily): MiddlewareHandler<AppEnv>;
  /** The caller's limits of `family` now, without spending anything ([] when unlimited). */
  peek(family: UsageFamily, caller: QuotaCaller): RuleStatus[];
  /** Meters `units` of served use for an account (anonymous use is limited, not metered). */
  record(caller: QuotaCaller, family: UsageFamily, units: number): void;
  /** The figures of a plan (or of anonymous callers). */
  limitsOf(plan: PlanRow): PlanLimits;
  usage(caller: Extract<QuotaCaller, { kind: "account" }>): Promise<UsageReport>;
}

export function plansService(deps: {
  db: Kysely<Database>;
  table: Record<PlanRow, PlanLimits>;
  counters: Pick<SyncedRateLimitStore, "addNow" | "getNow" | "ensure">;
  meter: UsageMeter;
  now?: () => number;
}): PlansService {
  const now = deps.now ?? Date.now;
  const rulesFor = planRules(deps.table);
  const quotas = Object.fromEntries(
    usageFamilies.map((f) => [f, new Quota(familyKinds[f], deps.counters, rulesFor(f), now)]),
  ) as Record<UsageFamily, Quota>;

  return {
    charge: (family, caller, cost) => quotas[family].take(caller, cost),
    chargeNow: (family, caller, cost) => quotas[family].takeNow(caller, cost),
    gate(family) {
      const quota = quotas[family];
      return async (c, next) => {
        await quota.gate(quotaCallerOf(c));
        await next();
      };
    },
    peek: (family, caller) => quotas[family].peek(caller),
    record(caller, family, units) {
      if (caller.kind === "account" && units > 0) deps.meter.record(caller.userId, family, units);
    },
    limitsOf: (plan) => deps.table[plan],
    async usage(caller) {
      const t = new Date(now());
      const start = new Date(Date.UTC(t.getUTCFullYear(), t.getUTCMonth(), 1));
      const end = new Date(Date.UTC(t.getUTCFullYear(), t.getUTCMonth() + 1, 1));
      const today = utcDay(t.getTime());
      const { rows } = await sql<{
        family: string;
        day: string;
        units: string | number;
        calls: string | number;
      }>`
        select family, to_char(day, 'YYYY-MM-DD') as day, units, calls from usage_daily
        where user_id = ${caller.userId} and day >= ${utcDay(start.getTime())}::date`.execute(deps.db);
      const sums = new Map(usageFamilies.map((f) => [f, { units: 0, calls: 0, today: 0 }]));
      const add = (family: string, day: string, units: number, calls: number) => {
        const s = sums.get(family as UsageFamily);
        if (!s || day < utcDay(start.getTime())) return;
        s.units += units;
        s.calls += calls;
        if (day === today) s.today += units;
      };
      for (const r of rows) add(r.family, r.day, Number(r.units), Number(r.calls));
      for (const p of deps.meter.unflushed(caller.userId)) add(p.family, p.day, p.units, p.calls);
      const plan = planOf(caller.plan);
      const limits: UsageReport["limits"] = [];
      for (const family of usageFamilies) {
        for (const s of await quotas[family].read(caller)) limits.push({ family, ...s });
      }
      return {
        plan,
        period: { start: start.toISOString(), end: end.toISOString() },
        usage: usageFamilies.map((family) => {
          const s = sums.get(family) ?? { units: 0, calls: 0, today: 0 };
          return {
            family,
            unit: familyKinds[family].unit,
            units: s.units,
            calls: s.calls,
            today_units: s.today,
          };
        }),
        limits,
        plan_limits: deps.table[plan],
      };
    },
  };
}
