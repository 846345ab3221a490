import type { Kysely } from "kysely";
import type { Logger } from "pino";
import type { Database } from "../../db/schema.js";
import type { ApiForm } from "../../http/security.js";
import type { PlanLimits, PlanRow } from "../../lib/plans.js";

/** What the monitors module's parts share: built once by `createMonitors`. */
export interface MonitorsContext {
  db: Kysely<Database>;
  log: Logger;
  form: ApiForm;
  /** The plan table: `monitors` (per account) and `min_monitor_interval_s` come from the account's plan. */
  plans: Record<PlanRow, PlanLimits>;
  /** Probe targets may be private (VANTAGE_ALLOW_PRIVATE_TARGETS). */
  allowPrivateTargets: boolean;
  now: () => number;
}
