import type { Insertable, Kysely } from "kysely";
import { jsonb } from "../db/json.js";
import type { Database } from "../db/schema.js";
import type { MonitorsTable } from "../db/tables/monitors.js";

/**
 * A monitor row written straight to the table (tests of what reads monitors: scheduler, results, alerts): an
 * active http monitor of `ownerId`, due far in the future unless `values` say otherwise. Returns its `seq`.
 */
export async function insertMonitor(
  db: Kysely<Database>,
  id: string,
  ownerId: string,
  values: Partial<Omit<Insertable<MonitorsTable>, "config">> & { config?: Record<string, unknown> } = {},
): Promise<string> {
  const { config, ...rest } = values;
  const row = await db
    .insertInto("monitors")
    .values({
      id,
      owner_id: ownerId,
      name: id,
      type: "http",
      target: "https://example.com/",
      interval_s: 60,
      status: "active",
      next_run_at: new Date("2100-01-01T00:00:00Z"),
      ...rest,
      config: jsonb(config ?? {}),
    })
    .returning("seq")
    .executeTakeFirstOrThrow();
  return String(row.seq);
}
