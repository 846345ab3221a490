import { describe, expect, it } from "vitest";
import { defaultPlans, parsePlanLimits, planOf, windowLimit } from "./plans.js";

describe("plan table", () => {
  it("defaults: more with a key than without, more on each paid plan", () => {
    const { anonymous, free, pro, business } = defaultPlans;
    for (const f of [
      "node_probes_per_hour",
      "lookups_per_minute",
      "lookups_per_day",
      "reputation_per_day",
    ] as const) {
      expect(free[f] ?? 0).toBeGreaterThan(anonymous[f] ?? 0);
      expect(pro[f] ?? 0).toBeGreaterThan(free[f] ?? 0);
      expect(business[f] ?? 0).toBeGreaterThan(pro[f] ?? 0);
    }
    expect(pro.min_monitor_interval_s).toBeLessThan(free.min_monitor_interval_s);
  });

  it("VANTAGE_PLAN_LIMITS changes only what it names", () => {
    const table = parsePlanLimits(
      '{"free":{"lookups_per_day":20000,"monitors":null},"anonymous":{"lookups_per_minute":0}}',
    );
    if (typeof table === "string") throw new Error(table);
    expect(table.free).toEqual({ ...defaultPlans.free, lookups_per_day: 20000, monitors: null });
    expect(table.anonymous.lookups_per_minute).toBe(0);
    expect(table.pro).toEqual(defaultPlans.pro);
    expect(parsePlanLimits(undefined)).toBe(defaultPlans);
    expect(parsePlanLimits("  ")).toBe(defaultPlans);
  });

  it("refuses what it cannot read, naming the problem", () => {
    expect(parsePlanLimits("{free:")).toMatch(/JSON object/);
    // What `set -a; . ./controller.env` leaves of VANTAGE_PLAN_LIMITS={"free":{"monitors":7}}.
    expect(parsePlanLimits("{free:{monitors:7}}")).toMatch(/double quotes are gone.*single quotes/);
    expect(parsePlanLimits("[1]")).not.toMatch(/double quotes/);
    expect(parsePlanLimits('{"gold":{}}')).toMatch(/unknown plan gold/);
    expect(parsePlanLimits('{"free":{"lookups_per_week":1}}')).toMatch(
      /^free: unknown limit lookups_per_week/,
    );
    expect(parsePlanLimits('{"free":{"lookups_per_day":-1}}')).toMatch(/^free\.lookups_per_day:/);
    expect(parsePlanLimits('{"pro":{"min_monitor_interval_s":null}}')).toMatch(
      /^pro\.min_monitor_interval_s:/,
    );
  });

  it("an unknown stored plan counts as free; 0 and null per window are unlimited", () => {
    expect(planOf("business")).toBe("business");
    expect(planOf("gold")).toBe("free");
    expect(planOf(undefined)).toBe("free");
    expect(windowLimit(0)).toBeUndefined();
    expect(windowLimit(null)).toBeUndefined();
    expect(windowLimit(7)).toBe(7);
  });
});
