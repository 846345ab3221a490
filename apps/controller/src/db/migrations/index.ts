import type { Migration, MigrationProvider } from "kysely";
import * as m20261122_0800 from "./20261122_0800_nodes.js";

/** Every migration, in order. Names sort by time; add new ones at the end. */
const migrations: Record<string, Migration> = {
  "20261122_0800_nodes": m20261122_0800,
};

export const inlineMigrations: MigrationProvider = {
  getMigrations: async () => migrations,
};
