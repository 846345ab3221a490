import type { Kysely, Selectable, Transaction } from "kysely";
import { jsonb } from "../../db/json.js";
import type { Database } from "../../db/schema.js";
import type {
  MonitorPausedReason,
  MonitorStatus,
  MonitorsTable,
  MonitorType,
} from "../../db/tables/monitors.js";

/** The CRUD statements of the `monitors` table (the scheduler, runner and writer keep their own). */

export type Executor = Kysely<Database> | Transaction<Database>;
export type MonitorRow = Selectable<MonitorsTable>;

export async function countMonitors(db: Executor, ownerId: string): Promise<number> {
  const row = await db
    .selectFrom("monitors")
    .select((eb) => eb.fn.countAll().as("n"))
    .where("owner_id", "=", ownerId)
    .executeTakeFirstOrThrow();
  // postgres.js returns bigint counts as strings, PGlite as numbers.
  return Number(row.n);
}

export interface NewMonitorRow {
  id: string;
  ownerId: string;
  name: string;
  type: MonitorType;
  target: string;
  config: Record<string, unknown>;
  intervalS: number;
  /** See the column `run_budget_s`. */
  runBudgetS: number;
  nextRunAt: Date;
  createdAt: Date;
}

export async function insertMonitor(db: Executor, m: NewMonitorRow): Promise<MonitorRow> {
  return db
    .insertInto("monitors")
    .values({
      id: m.id,
      owner_id: m.ownerId,
      name: m.name,
      type: m.type,
      target: m.target,
      config: jsonb(m.config),
      interval_s: m.intervalS,
      run_budget_s: m.runBudgetS,
      status: "active",
      next_run_at: m.nextRunAt,
      created_at: m.createdAt,
      updated_at: m.createdAt,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** A page of the owner's monitors, newest first (ties broken by id, so pages never overlap). */
export async function listMonitors(
  db: Executor,
  ownerId: string,
  page: { limit: number; offset: number },
): Promise<MonitorRow[]> {
  return db
    .selectFrom("monitors")
    .selectAll()
    .where("owner_id", "=", ownerId)
    .orderBy("created_at", "desc")
    .orderBy("id", "desc")
    .limit(page.limit)
    .offset(page.offset)
    .execute();
}

export interface MonitorChanges {
  name?: string;
  config?: Record<string, unknown>;
  intervalS?: number;
  /** Set with `config`: see the column `run_budget_s`. */
  runBudgetS?: number;
  status?: MonitorStatus;
  /** Set with `status`: null for a person's pause and for a resume. */
  pausedReason?: MonitorPausedReason | null;
  nextRunAt?: Date;
}

/** Applies `changes` to the owner's monitor; undefined when there is no such monitor of theirs. */
export async function updateMonitor(
  db: Executor,
  ownerId: string,
  id: string,
  changes: MonitorChanges,
  now: Date,
): Promise<MonitorRow | undefined> {
  return db
    .updateTable("monitors")
    .set({
      ...(changes.name !== undefined ? { name: changes.name } : {}),
      ...(changes.config !== undefined ? { config: jsonb(changes.config) } : {}),
      ...(changes.intervalS !== undefined ? { interval_s: changes.intervalS } : {}),
      ...(changes.runBudgetS !== undefined ? { run_budget_s: changes.runBudgetS } : {}),
      ...(changes.status !== undefined ? { status: changes.status } : {}),
      ...(changes.pausedReason !== undefined ? { paused_reason: changes.pausedReason } : {}),
      ...(changes.nextRunAt !== undefined ? { next_run_at: changes.nextRunAt } : {}),
      updated_at: now,
    })
    .where("id", "=", id)
    .where("owner_id", "=", ownerId)
    .returningAll()
    .executeTakeFirst();
}

/**
 * Deletes the owner's monitor with everything it produced: state changes (by foreign key), runs and
 * roll-ups (by its seq: a key-prefix delete each); false when there is none.
 */
export async function deleteMonitor(db: Kysely<Database>, ownerId: string, id: string): Promise<boolean> {
  return db.transaction().execute(async (tx) => {
    const gone = await tx
      .deleteFrom("monitors")
      .where("id", "=", id)
      .where("owner_id", "=", ownerId)
      .returning("seq")
      .executeTakeFirst();
    if (!gone) return false;
    await tx.deleteFrom("monitor_runs").where("monitor_seq", "=", gone.seq).execute();
    await tx.deleteFrom("monitor_rollups").where("monitor_seq", "=", gone.seq).execute();
    return true;
  });
}

/**
 * The system pauses an active monitor (its run was in flight when an agent crashed); false when it was not
 * active (paused meanwhile, or deleted).
 */
export async function pauseBySystem(
  db: Executor,
  id: string,
  reason: MonitorPausedReason,
  now: Date,
): Promise<boolean> {
  const row = await db
    .updateTable("monitors")
    .set({ status: "paused", paused_reason: reason, updated_at: now })
    .where("id", "=", id)
    .where("status", "=", "active")
    .returning("id")
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * In an account's deletion: the runs and roll-ups of every monitor of the owner (keyed by seq, no foreign
 * key); the monitors themselves, their state changes and policies go with the user row.
 */
export async function deleteOwnerRuns(tx: Transaction<Database>, ownerId: string): Promise<void> {
  const seqs = tx.selectFrom("monitors").select("seq").where("owner_id", "=", ownerId);
  await tx.deleteFrom("monitor_runs").where("monitor_seq", "in", seqs).execute();
  await tx.deleteFrom("monitor_rollups").where("monitor_seq", "in", seqs).execute();
}
