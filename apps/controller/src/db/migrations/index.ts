import type { Migration, MigrationProvider } from "kysely";
import * as m20261122_0800 from "./20261122_0800_nodes.js";
import * as m20261122_0900 from "./20261122_0900_accounts.js";
import * as m20261122_1000 from "./20261122_1000_probes.js";
import * as m20261123_0900 from "./20261123_0900_delivery_outbox.js";
import * as m20261123_1000 from "./20261123_1000_task_leases.js";
import * as m20261124_0900 from "./20261124_0900_lookup_records.js";
import * as m20261124_2200 from "./20261124_2200_usage_daily.js";
import * as m20261124_2300 from "./20261124_2300_monitors.js";
import * as m20261125_0000 from "./20261125_0000_alerts.js";
import * as m20261125_1000 from "./20261125_1000_billing.js";
import * as m20261126_0900 from "./20261126_0900_alert_channel_health.js";
import * as m20261126_1000 from "./20261126_1000_monitor_paused_reason.js";
import * as m20261128_0100 from "./20261128_0100_account_recovery.js";
import * as m20261129_0100 from "./20261129_0100_alert_policy_scope.js";
import * as m20261129_0200 from "./20261129_0200_alert_events_kept.js";
import * as m20261129_0300 from "./20261129_0300_monitor_run_status.js";
import * as m20261129_1200 from "./20261129_1200_monitor_stale.js";
import * as m20261129_1201 from "./20261129_1201_monitor_evidence.js";
import * as m20261129_1300 from "./20261129_1300_status_pages.js";
import * as m20261129_1400 from "./20261129_1400_maintenance_windows.js";
import * as m20261129_1401 from "./20261129_1401_alert_escalation.js";
import * as m20261129_1402 from "./20261129_1402_metrics_tokens.js";
import * as m20261129_1700 from "./20261129_1700_result_signatures.js";
import * as m20261129_1701 from "./20261129_1701_probe_shares.js";
import * as m20261129_1800 from "./20261129_1800_monitor_run_budget.js";
import * as m20261202_1100 from "./20261202_1100_probe_task_owner.js";

/** Every migration, in order. Names sort by time; add new ones at the end. */
const migrations: Record<string, Migration> = {
  "20261122_0800_nodes": m20261122_0800,
  "20261122_0900_accounts": m20261122_0900,
  "20261122_1000_probes": m20261122_1000,
  "20261123_0900_delivery_outbox": m20261123_0900,
  "20261123_1000_task_leases": m20261123_1000,
  "20261124_0900_lookup_records": m20261124_0900,
  "20261124_2200_usage_daily": m20261124_2200,
  "20261124_2300_monitors": m20261124_2300,
  "20261125_0000_alerts": m20261125_0000,
  "20261125_1000_billing": m20261125_1000,
  "20261126_0900_alert_channel_health": m20261126_0900,
  "20261126_1000_monitor_paused_reason": m20261126_1000,
  "20261128_0100_account_recovery": m20261128_0100,
  "20261129_0100_alert_policy_scope": m20261129_0100,
  "20261129_0200_alert_events_kept": m20261129_0200,
  "20261129_0300_monitor_run_status": m20261129_0300,
  "20261129_1200_monitor_stale": m20261129_1200,
  "20261129_1201_monitor_evidence": m20261129_1201,
  "20261129_1300_status_pages": m20261129_1300,
  "20261129_1400_maintenance_windows": m20261129_1400,
  "20261129_1401_alert_escalation": m20261129_1401,
  "20261129_1402_metrics_tokens": m20261129_1402,
  "20261129_1700_result_signatures": m20261129_1700,
  "20261129_1701_probe_shares": m20261129_1701,
  "20261129_1800_monitor_run_budget": m20261129_1800,
  "20261202_1100_probe_task_owner": m20261202_1100,
};

export const inlineMigrations: MigrationProvider = {
  getMigrations: async () => migrations,
};
