import { z } from "zod";

/** The plans an account can be on (the spec's names); `free` until billing or an operator changes it. */
export const planNames = ["free", "pro", "business"] as const;
export type PlanName = (typeof planNames)[number];

/** The plan table's rows: the three plans, and `anonymous` for calls without credentials (per client IP). */
export const planRows = ["anonymous", ...planNames] as const;
export type PlanRow = (typeof planRows)[number];

/**
 * What a plan allows. Per-window figures (`*_per_minute`, `_per_hour`, `_per_day`): `null` or `0` means
 * unlimited. Counts (`monitors`, `alert_channels`, `api_keys`): `null` means unlimited, `0` none.
 */
export interface PlanLimits {
  /** Node-probes per hour (a task on 3 nodes costs 3): per account; anonymous per client IP. */
  node_probes_per_hour: number | null;
  /** Information lookups (`/v1/info/*`) per minute: per API key (or session); anonymous per client IP. */
  lookups_per_minute: number | null;
  /** Information lookups per UTC day: per account (its quota); anonymous per client IP. */
  lookups_per_day: number | null;
  /** Reputation calls per minute: per API key (or session); anonymous per client IP. */
  reputation_per_minute: number | null;
  /** Reputation calls per UTC day: per account (its quota); anonymous per client IP. */
  reputation_per_day: number | null;
  /** Monitors an account may keep. */
  monitors: number | null;
  /** The shortest interval a monitor may run at, seconds. */
  min_monitor_interval_s: number;
  /** Alert channels an account may keep. */
  alert_channels: number | null;
  /** Active API keys an account may hold (and, separately, as many personal access tokens). */
  api_keys: number | null;
}

/**
 * The defaults, in the spirit of Globalping's (250 tests an hour anonymous, more with a token): tens of
 * calls a minute without credentials, more with a key, much more on paid plans.
 */
export const defaultPlans: Record<PlanRow, PlanLimits> = {
  anonymous: {
    node_probes_per_hour: 250,
    lookups_per_minute: 30,
    lookups_per_day: 1000,
    reputation_per_minute: 10,
    reputation_per_day: 200,
    monitors: 0,
    min_monitor_interval_s: 300,
    alert_channels: 0,
    api_keys: 0,
  },
  free: {
    node_probes_per_hour: 1000,
    lookups_per_minute: 60,
    lookups_per_day: 5000,
    reputation_per_minute: 30,
    reputation_per_day: 1000,
    monitors: 10,
    min_monitor_interval_s: 30,
    alert_channels: 3,
    api_keys: 5,
  },
  pro: {
    node_probes_per_hour: 10_000,
    lookups_per_minute: 300,
    lookups_per_day: 100_000,
    reputation_per_minute: 120,
    reputation_per_day: 25_000,
    monitors: 100,
    min_monitor_interval_s: 15,
    alert_channels: 20,
    api_keys: 25,
  },
  business: {
    node_probes_per_hour: 50_000,
    lookups_per_minute: 1200,
    lookups_per_day: 1_000_000,
    reputation_per_minute: 600,
    reputation_per_day: 250_000,
    monitors: 1000,
    min_monitor_interval_s: 10,
    alert_channels: 100,
    api_keys: 100,
  },
};

const count = z.number().int().min(0).max(1_000_000_000);
const limitsOverride = z.strictObject({
  node_probes_per_hour: count.nullable().optional(),
  lookups_per_minute: count.nullable().optional(),
  lookups_per_day: count.nullable().optional(),
  reputation_per_minute: count.nullable().optional(),
  reputation_per_day: count.nullable().optional(),
  monitors: count.nullable().optional(),
  min_monitor_interval_s: z.number().int().min(1).max(86_400).optional(),
  alert_channels: count.nullable().optional(),
  api_keys: count.nullable().optional(),
});
const overridesSchema = z.strictObject({
  anonymous: limitsOverride.optional(),
  free: limitsOverride.optional(),
  pro: limitsOverride.optional(),
  business: limitsOverride.optional(),
});
export type PlanOverrides = z.infer<typeof overridesSchema>;

/**
 * `VANTAGE_PLAN_LIMITS`: JSON naming only what changes, e.g. `{"free":{"lookups_per_day":20000}}`; the rest
 * keeps its default. Returns the whole table, or a message naming the first problem.
 */
export function parsePlanLimits(text: string | undefined): Record<PlanRow, PlanLimits> | string {
  if (text === undefined || text.trim() === "") return defaultPlans;
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    const shape = 'must be a JSON object such as {"free":{"lookups_per_day":20000}}';
    // `{free:{lookups_per_day:20000}}`: what a shell (or an env file sourced by one) leaves of unquoted JSON.
    return /^\s*\{\s*[a-z_]+\s*:/.test(text)
      ? `${shape}; its double quotes are gone: in an env file or a shell, wrap the JSON in single quotes, ` +
          `VANTAGE_PLAN_LIMITS='{"free":{"lookups_per_day":20000}}'`
      : shape;
  }
  const parsed = overridesSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const path = issue?.path.map(String).join(".") ?? "";
    const message =
      issue?.code === "unrecognized_keys"
        ? `unknown ${path ? "limit" : "plan"} ${issue.keys.join(", ")} (plans: ${planRows.join(", ")})`
        : (issue?.message ?? "invalid");
    return path ? `${path}: ${message}` : message;
  }
  return mergePlans(parsed.data);
}

/** The default table with `overrides` applied. */
export function mergePlans(overrides: PlanOverrides): Record<PlanRow, PlanLimits> {
  const table = {} as Record<PlanRow, PlanLimits>;
  for (const row of planRows) {
    const changes = Object.fromEntries(
      Object.entries(overrides[row] ?? {}).filter(([, v]) => v !== undefined),
    ) as Partial<PlanLimits>;
    table[row] = { ...defaultPlans[row], ...changes };
  }
  return table;
}

/** A plan name as stored; anything unknown (an old or hand-edited value) is treated as `free`. */
export function planOf(stored: string | undefined): PlanName {
  return (planNames as readonly string[]).includes(stored ?? "") ? (stored as PlanName) : "free";
}

/** A per-window figure as a limit: `null` and `0` are unlimited (undefined). */
export function windowLimit(value: number | null): number | undefined {
  return value === null || value === 0 ? undefined : value;
}
