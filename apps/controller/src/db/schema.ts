import type { AccountTables } from "./tables/accounts.js";
import type { NodeTables } from "./tables/nodes.js";
import type { ProbeTables } from "./tables/probes.js";

/**
 * The database as the application sees it: one interface per area in `tables/`, joined here.
 * Migrations never import these types (they are frozen in time).
 */
export interface Database extends AccountTables, NodeTables, ProbeTables {}
