import type { QuotaCaller, QuotaKind, QuotaRule } from "../../http/rate-limit/index.js";
import { type PlanLimits, type PlanRow, planOf, planRows, windowLimit } from "../../lib/plans.js";

/**
 * The endpoint families limited and metered apart: probes in node-probes, lookups and reputation in calls,
 * alert channel test sends (limited by the alerts module, per channel and account: no plan figure).
 */
export const usageFamilies = ["probes", "lookups", "reputation", "alert_tests"] as const;
export type UsageFamily = (typeof usageFamilies)[number];

export const familyKinds: Record<UsageFamily, QuotaKind> = {
  probes: { name: "probe", unit: "node-probes" },
  lookups: { name: "lookup", unit: "lookups" },
  reputation: { name: "reputation", unit: "reputation calls" },
  alert_tests: { name: "alert-test", unit: "test sends" },
};

/** Which plan figures limit a family, and over which window. */
const familyFields: Record<
  UsageFamily,
  { window: QuotaRule["window"]; field: keyof PlanLimits; per: "credential" | "account" }[]
> = {
  probes: [{ window: "hour", field: "node_probes_per_hour", per: "account" }],
  lookups: [
    { window: "minute", field: "lookups_per_minute", per: "credential" },
    { window: "day", field: "lookups_per_day", per: "account" },
  ],
  reputation: [
    { window: "minute", field: "reputation_per_minute", per: "credential" },
    { window: "day", field: "reputation_per_day", per: "account" },
  ],
  alert_tests: [],
};

/**
 * The rules of every family for every plan row, built once from the table: anonymous callers are rate
 * limited per client IP on every window; an account is rate limited per credential on the per-minute
 * figure and meets its plan's quota (`quota_exceeded`) on the hour and day figures, counted per account.
 */
export function planRules(
  table: Record<PlanRow, PlanLimits>,
): (family: UsageFamily) => (caller: QuotaCaller) => readonly QuotaRule[] {
  const built = new Map<string, QuotaRule[]>();
  for (const family of usageFamilies) {
    for (const row of planRows) {
      const rules: QuotaRule[] = [];
      for (const f of familyFields[family]) {
        const limit = windowLimit(table[row][f.field] as number | null);
        if (limit === undefined) continue;
        if (row === "anonymous") rules.push({ window: f.window, limit, per: "ip", code: "rate_limited" });
        else {
          const quota = f.per === "account";
          rules.push({
            window: f.window,
            limit,
            per: f.per,
            code: quota ? "quota_exceeded" : "rate_limited",
            source: `the ${row} plan`,
          });
        }
      }
      built.set(`${family}:${row}`, rules);
    }
  }
  return (family) => {
    const anonymous = built.get(`${family}:anonymous`) ?? [];
    const byPlan = new Map(planRows.map((row) => [row, built.get(`${family}:${row}`) ?? []]));
    return (caller) => (caller.kind === "ip" ? anonymous : (byPlan.get(planOf(caller.plan)) ?? []));
  };
}
