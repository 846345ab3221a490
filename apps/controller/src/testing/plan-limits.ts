import { type PlanOverrides, planRows } from "../lib/plans.js";

const windowFields = [
  "node_probes_per_hour",
  "lookups_per_minute",
  "lookups_per_day",
  "reputation_per_minute",
  "reputation_per_day",
] as const;

/**
 * `VANTAGE_PLAN_LIMITS` for tests: every per-window limit of every plan off (so tests sharing 127.0.0.1 do
 * not meet), then `overrides` on top, e.g. `planLimitsEnv({ anonymous: { lookups_per_minute: 2 } })`.
 */
export function planLimitsEnv(overrides: PlanOverrides = {}): string {
  const table: PlanOverrides = {};
  for (const row of planRows) {
    table[row] = {
      ...Object.fromEntries(windowFields.map((f) => [f, null])),
      ...overrides[row],
    };
  }
  return JSON.stringify(table);
}
