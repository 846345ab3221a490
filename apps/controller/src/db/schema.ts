import type { NodeTables } from "./tables/nodes.js";

/**
 * The database as the application sees it: one interface per area in `tables/`, joined here.
 * Migrations never import these types (they are frozen in time).
 */
export interface Database extends NodeTables {}
