import type { AccountTables } from "./tables/accounts.js";
import type { AlertTables } from "./tables/alerts.js";
import type { BillingTables } from "./tables/billing.js";
import type { ControllerTables } from "./tables/controllers.js";
import type { DeliveryTables } from "./tables/delivery.js";
import type { LookupTables } from "./tables/lookups.js";
import type { MaintenanceTables } from "./tables/maintenance.js";
import type { MonitorTables } from "./tables/monitors.js";
import type { NodeTables } from "./tables/nodes.js";
import type { ProbeTables } from "./tables/probes.js";
import type { RateLimitTables } from "./tables/rate-limits.js";
import type { StatusPageTables } from "./tables/status-pages.js";
import type { UsageTables } from "./tables/usage.js";

/**
 * The database as the application sees it: one interface per area in `tables/`, joined here.
 * Migrations never import these types (they are frozen in time).
 */
export interface Database
  extends AccountTables,
    AlertTables,
    BillingTables,
    ControllerTables,
    DeliveryTables,
    LookupTables,
    MaintenanceTables,
    MonitorTables,
    NodeTables,
    ProbeTables,
    RateLimitTables,
    StatusPageTables,
    UsageTables {}
