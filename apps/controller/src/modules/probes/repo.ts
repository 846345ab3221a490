import { type Kysely, type RawBuilder, sql } from "kysely";
import { jsonb as toJsonb } from "../../db/json.js";
import type { Database } from "../../db/schema.js";
import type { ProbeTaskStatus } from "../../db/tables/probes.js";
import { randomHex } from "../../lib/random-hex.js";
import type { NodeResult } from "./dispatch.js";

/** `task_` + time (base36, sortable) + 64 random bits: readable in logs, not guessable. */
export function newTaskId(now = Date.now()): string {
  return `task_${now.toString(36).padStart(9, "0")}${randomHex(8)}`;
}

/** The creation time written into a task id, or undefined when the id is not one of ours. */
export function taskIdTime(id: string): number | undefined {
  if (!/^task_[0-9a-z]{9}[0-9a-f]{16}$/.test(id)) return undefined;
  return Number.parseInt(id.slice(5, 14), 36);
}

export interface TaskRecord {
  id: string;
  type: string;
  target: string;
  spec: unknown;
  owner_id: string | null;
  status: ProbeTaskStatus;
  node_ids: string[];
  created_at: Date;
  finished_at: Date | null;
  results: NodeResult[];
}

export interface NewTask {
  id: string;
  type: string;
  target: string;
  spec: unknown;
  nodeIds: string[];
  ownerId: string | null;
  createdAt: Date;
  /** Form A: when the last node must have answered, and the controller instance running the task. */
  deadlineAt?: Date;
  controllerId?: string;
  /** Form A: the completion webhook's URL (callback.ts). */
  callbackUrl?: string | undefined;
}

/** `jsonb()` of db/json.ts, with null and undefined as SQL null. */
const jsonb = (v: unknown): RawBuilder<never> =>
  v === null || v === undefined ? sql<never>`cast(null as jsonb)` : toJsonb<never>(v);

export async function insertTask(db: Kysely<Database>, t: NewTask, status: ProbeTaskStatus): Promise<void> {
  await db
    .insertInto("probe_tasks")
    .values({
      id: t.id,
      type: t.type,
      target: t.target,
      spec: jsonb(t.spec),
      status,
      node_ids: jsonb(t.nodeIds),
      owner_id: t.ownerId,
      created_at: t.createdAt,
      deadline_at: t.deadlineAt ?? null,
      controller_id: t.controllerId ?? null,
      callback_url: t.callbackUrl ?? null,
    })
    .execute();
}

/**
 * Followers of a task on other controllers LISTEN here (`TaskWatch`): the task's id is sent with each result
 * stored and when the task finishes (Form A; Form B's tasks are written finished).
 */
export const RESULTS_CHANNEL = "vantage_probe_results";

/**
 * Moves an unfinished task to `status`; `finishedAt` finishes it, and then the move is announced on
 * `RESULTS_CHANNEL` in the same statement. Resolves false when the task did not move (a task the sweeper
 * already failed stays failed).
 */
export async function setTaskStatus(
  db: Kysely<Database>,
  id: string,
  status: ProbeTaskStatus,
  finishedAt?: Date,
): Promise<boolean> {
  if (!finishedAt) {
    const res = await db
      .updateTable("probe_tasks")
      .set({ status })
      .where("id", "=", id)
      .where("status", "in", ["queued", "running"])
      .executeTakeFirst();
    return Number(res.numUpdatedRows) > 0;
  }
  const { rows } = await sql<{ id: string }>`
    with moved as (
      update probe_tasks set status = ${status}, finished_at = ${finishedAt}
      where id = ${id} and status in ('queued', 'running')
      returning id
    )
    select id, pg_notify(${RESULTS_CHANNEL}, id) from moved`.execute(db);
  return rows.length > 0;
}

function resultRow(taskId: string, r: NodeResult) {
  return sql`(${taskId}, ${r.node_id}, ${r.node_name}, cast(${r.position} as integer),
    cast(${r.success} as boolean), cast(${r.latency_ms} as double precision), cast(${r.error?.code ?? null} as text),
    cast(${r.error?.message ?? null} as text), ${jsonb(r.detail)}, cast(${r.duration_ms} as double precision),
    ${jsonb(r.signature)})`;
}

const resultColumns = sql`(task_id, node_id, node_name, position, success, latency_ms, error_code, error_message, detail, duration_ms, signature)`;

/**
 * Idempotent: a retry after a write whose answer was lost (the connection dropped) adds nothing. The same
 * statement announces the result on `RESULTS_CHANNEL` (delivered at its commit).
 */
export async function insertResult(db: Kysely<Database>, taskId: string, r: NodeResult): Promise<void> {
  await sql`with stored as (
      insert into probe_results ${resultColumns} values ${resultRow(taskId, r)}
      on conflict (task_id, node_id) do nothing
    )
    select pg_notify(${RESULTS_CHANNEL}, ${taskId})`.execute(db);
}

/** A column of values as a text array parameter (null stays null); SQL casts it to the column's type. */
const column = (values: readonly (string | number | boolean | null)[]): RawBuilder<never> =>
  sql<never>`${values.map((v) => (v === null ? null : String(v)))}`;
const json = (v: unknown) => (v === null || v === undefined ? null : JSON.stringify(v));

/**
 * Finished tasks with all their results, any number of tasks in one statement (the result writer batches
 * them). Every column travels as one array parameter, so the statement text is the same for any batch:
 * prepared once per connection, never parsed and planned again. It commits asynchronously
 * (`synchronous_commit = off` for this transaction only): a PostgreSQL crash can lose the last few hundred
 * milliseconds of probe results — never consistency. Everything else the controller writes keeps the
 * server's setting. Idempotent: a batch written again after its answer was lost adds nothing. A task whose
 * account was deleted meanwhile is left out with its results; one deleted while this statement runs fails
 * it on the owner's foreign key (23503), and the writer's retry of each task alone then leaves it out.
 */
export async function insertFinishedTasks(db: Kysely<Database>, tasks: readonly TaskRecord[]): Promise<void> {
  const results = tasks.flatMap((t) => t.results.map((r) => ({ taskId: t.id, r })));
  await sql`
    with relaxed as (select set_config('synchronous_commit', 'off', true)),
    kept as (
      select * from unnest(
        cast(${column(tasks.map((t) => t.id))} as text[]),
        cast(${column(tasks.map((t) => t.type))} as text[]),
        cast(${column(tasks.map((t) => t.target))} as text[]),
        cast(cast(${column(tasks.map((t) => json(t.spec)))} as text[]) as jsonb[]),
        cast(${column(tasks.map((t) => t.status))} as text[]),
        cast(cast(${column(tasks.map((t) => json(t.node_ids)))} as text[]) as jsonb[]),
        cast(${column(tasks.map((t) => t.owner_id))} as text[]),
        cast(cast(${column(tasks.map((t) => t.created_at.toISOString()))} as text[]) as timestamptz[]),
        cast(cast(${column(tasks.map((t) => (t.finished_at ?? new Date()).toISOString()))} as text[]) as timestamptz[])
      ) as t (id, type, target, spec, status, node_ids, owner_id, created_at, finished_at)
      where t.owner_id is null or exists (select 1 from users u where u.id = t.owner_id)
    ),
    task as (
      insert into probe_tasks (id, type, target, spec, status, node_ids, owner_id, created_at, finished_at)
      select * from kept
      on conflict (id) do nothing
    )
    insert into probe_results ${resultColumns}
    select r.* from unnest(
      cast(${column(results.map((x) => x.taskId))} as text[]),
      cast(${column(results.map((x) => x.r.node_id))} as text[]),
      cast(${column(results.map((x) => x.r.node_name))} as text[]),
      cast(cast(${column(results.map((x) => x.r.position))} as text[]) as integer[]),
      cast(cast(${column(results.map((x) => x.r.success))} as text[]) as boolean[]),
      cast(cast(${column(results.map((x) => x.r.latency_ms))} as text[]) as double precision[]),
      cast(${column(results.map((x) => x.r.error?.code ?? null))} as text[]),
      cast(${column(results.map((x) => x.r.error?.message ?? null))} as text[]),
      cast(cast(${column(results.map((x) => json(x.r.detail)))} as text[]) as jsonb[]),
      cast(cast(${column(results.map((x) => x.r.duration_ms))} as text[]) as double precision[]),
      cast(cast(${column(results.map((x) => json(x.r.signature)))} as text[]) as jsonb[])
    ) as r ${resultColumns} cross join relaxed
    where r.task_id in (select id from kept)
    on conflict (task_id, node_id) do nothing`.execute(db);
}

/**
 * Unfinished tasks whose controller is gone become `failed`, so a poller is not left waiting forever:
 * - a Form A task whose deadline has passed while its controller's lease is not fresh (it died mid-task;
 *   `leases` false skips this rule, see the sweeper);
 * - a task without a controller (written before leases existed) still unfinished at `olderThan`.
 * A task whose controller holds a fresh lease is never touched: that controller finishes it.
 */
export async function failAbandonedTasks(
  db: Kysely<Database>,
  at: { now: Date; olderThan: Date; leaseFreshAfter: Date; leases: boolean },
): Promise<number> {
  const res = await db
    .updateTable("probe_tasks")
    .set({ status: "failed", finished_at: at.now })
    .where("status", "in", ["queued", "running"])
    .where((eb) =>
      eb.or([
        eb.and([eb("controller_id", "is", null), eb("created_at", "<", at.olderThan)]),
        eb.and([
          eb.val(at.leases),
          eb("controller_id", "is not", null),
          eb("deadline_at", "<", at.now),
          eb.not(
            eb.exists(
              eb
                .selectFrom("controller_leases")
                .select(eb.lit(1).as("one"))
                .whereRef("controller_leases.id", "=", "probe_tasks.controller_id")
                .where("controller_leases.renewed_at", ">", at.leaseFreshAfter),
            ),
          ),
        ]),
      ]),
    )
    .executeTakeFirst();
  return Number(res.numUpdatedRows);
}

export async function findTask(db: Kysely<Database>, id: string): Promise<TaskRecord | undefined> {
  // One statement, one snapshot: the task's row and its results as they were together (a row per result,
  // or one with no result when there is none yet).
  const rows = await db
    .selectFrom("probe_tasks as t")
    .leftJoin("probe_results as r", "r.task_id", "t.id")
    .select([
      "t.id",
      "t.type",
      "t.target",
      "t.spec",
      "t.owner_id",
      "t.status",
      "t.node_ids",
      "t.created_at",
      "t.finished_at",
      "r.node_id",
      "r.node_name",
      "r.position",
      "r.success",
      "r.latency_ms",
      "r.error_code",
      "r.error_message",
      "r.detail",
      "r.duration_ms",
      "r.signature",
    ])
    .where("t.id", "=", id)
    .orderBy("r.position")
    .execute();
  const task = rows[0];
  if (!task) return undefined;
  const results: NodeResult[] = [];
  for (const r of rows) {
    if (r.node_id === null || r.position === null) continue;
    results.push({
      node_id: r.node_id,
      node_name: r.node_name ?? "",
      position: r.position,
      success: r.success ?? false,
      latency_ms: r.latency_ms === null ? null : Number(r.latency_ms),
      error: r.error_code ? { code: r.error_code, message: r.error_message ?? "" } : null,
      detail: (r.detail as Record<string, unknown> | null) ?? null,
      duration_ms: r.duration_ms === null ? null : Number(r.duration_ms),
      ...(r.signature ? { signature: r.signature } : {}),
    });
  }
  return {
    id: task.id,
    type: task.type,
    target: task.target,
    spec: task.spec,
    owner_id: task.owner_id,
    // Form A writes `running` before its jobs go out, so a snapshot shows no results on a `queued` row;
    // should one ever, the task was running.
    status: task.status === "queued" && results.length > 0 ? "running" : task.status,
    node_ids: task.node_ids,
    created_at: new Date(task.created_at),
    finished_at: task.finished_at ? new Date(task.finished_at) : null,
    results,
  };
}

/**
 * Retention (`VANTAGE_PROBE_RETENTION_DAYS`): deletes up to `limit` tasks created before `cut`, oldest
 * first, their results and revoked shares with them (foreign keys); a task with a live share link stays
 * until its owner revokes the link. Resolves with how many went.
 */
export async function deleteExpiredTasks(db: Kysely<Database>, cut: Date, limit: number): Promise<number> {
  const res = await sql`
    delete from probe_tasks where id in (
      select t.id from probe_tasks t
      where t.created_at < ${cut}
        and not exists (select 1 from probe_shares s where s.task_id = t.id and s.revoked_at is null)
      order by t.created_at
      limit ${limit})`.execute(db);
  return Number(res.numAffectedRows ?? 0);
}
