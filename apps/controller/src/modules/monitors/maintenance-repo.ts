import type { Selectable } from "kysely";
import { type Kysely, sql } from "kysely";
import type { Database } from "../../db/schema.js";
import type { MaintenanceWindowsTable } from "../../db/tables/maintenance.js";

/** Every SQL statement over `maintenance_windows` (and the raw runs they cover, for uptime). */

export type WindowRow = Selectable<MaintenanceWindowsTable>;

export async function insertWindow(db: Kysely<Database>, row: Omit<WindowRow, "created_at" | "updated_at">) {
  return db.insertInto("maintenance_windows").values(row).returningAll().executeTakeFirstOrThrow();
}

export async function updateWindow(
  db: Kysely<Database>,
  id: string,
  owner: string,
  row: Omit<WindowRow, "id" | "owner_id" | "created_at" | "updated_at">,
) {
  return db
    .updateTable("maintenance_windows")
    .set({ ...row, updated_at: sql<Date>`now()` as unknown as Date })
    .where("id", "=", id)
    .where("owner_id", "=", owner)
    .returningAll()
    .executeTakeFirst();
}

export async function findWindow(db: Kysely<Database>, id: string, owner: string) {
  return db
    .selectFrom("maintenance_windows")
    .selectAll()
    .where("id", "=", id)
    .where("owner_id", "=", owner)
    .executeTakeFirst();
}

export async function deleteWindow(db: Kysely<Database>, id: string, owner: string): Promise<boolean> {
  const r = await db
    .deleteFrom("maintenance_windows")
    .where("id", "=", id)
    .where("owner_id", "=", owner)
    .executeTakeFirst();
  return Number(r.numDeletedRows) > 0;
}

export async function countWindows(db: Kysely<Database>, owner: string): Promise<number> {
  const r = await db
    .selectFrom("maintenance_windows")
    .select((eb) => eb.fn.countAll().as("n"))
    .where("owner_id", "=", owner)
    .executeTakeFirst();
  return Number(r?.n ?? 0);
}

/** A page of the owner's windows, newest first, and how many there are. */
export async function listWindows(db: Kysely<Database>, owner: string, page: number, limit: number) {
  const [items, total] = await Promise.all([
    db
      .selectFrom("maintenance_windows")
      .selectAll()
      .where("owner_id", "=", owner)
      .orderBy("created_at", "desc")
      .orderBy("id", "desc")
      .limit(limit)
      .offset((page - 1) * limit)
      .execute(),
    countWindows(db, owner),
  ]);
  return { items, total };
}

/** Every window of these owners (the alert path checks changes against them). */
export async function windowsOfOwners(db: Kysely<Database>, owners: string[]): Promise<WindowRow[]> {
  if (owners.length === 0) return [];
  return db.selectFrom("maintenance_windows").selectAll().where("owner_id", "in", owners).execute();
}

/** Which of the ids are the owner's monitors. */
export async function ownedMonitorIds(
  db: Kysely<Database>,
  owner: string,
  ids: string[],
): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await db
    .selectFrom("monitors")
    .select("id")
    .where("owner_id", "=", owner)
    .where("id", "in", ids)
    .execute();
  return new Set(rows.map((r) => r.id));
}

/** Runs (slots) and failing runs (majority rule) of a monitor inside the intervals. */
export async function runsInIntervals(
  db: Kysely<Database>,
  seq: string,
  intervals: [number, number][],
): Promise<{ runs: number; failures: number }> {
  let runs = 0;
  let failures = 0;
  for (const [from, to] of intervals) {
    const { rows } = await sql<{ runs: number | string; failures: number | string }>`
      with slots as (
        select 2 * count(*) filter (where success) > count(*) as passed from monitor_runs
        where monitor_seq = ${seq} and slot >= ${new Date(from)} and slot < ${new Date(to)} group by slot
      )
      select count(*) as runs, count(*) filter (where not passed) as failures from slots`.execute(db);
    runs += Number(rows[0]?.runs ?? 0);
    failures += Number(rows[0]?.failures ?? 0);
  }
  return { runs, failures };
}
