import { type Kysely, sql } from "kysely";
import type { Database } from "../../db/schema.js";
import type { MonitorState } from "../../db/tables/monitors.js";

/**
 * Every SQL statement over `monitor_runs` and `monitor_rollups` that reads results, rolls them up or trims
 * them. A run (one slot) passes when strictly more than half of its nodes pass; latency percentiles are over
 * the passing nodes' `latency_ms`.
 */

export type RollupPeriod = "minute" | "hour" | "day";

/**
 * The roll-up job keeps its progress in `monitor_rollups` itself: one row per period with `monitor_seq = 0`
 * (no monitor has it: `seq` is an identity starting at 1) whose `bucket` is where the next roll-up of that
 * period starts. Read and moved under the job's lock, in the transaction that rolls the bucket up.
 */
const PROGRESS_SEQ = 0;

/** Reads its own timestamps back as Dates whatever the driver gives. */
const toDate = (v: Date | string): Date => (v instanceof Date ? v : new Date(v));
const toNum = (v: number | string | null): number | null => (v === null ? null : Number(v));

// ---- The job's lock and progress ----

/** Takes the roll-up job's transaction-scoped advisory lock; false when another controller holds it. */
export async function tryJobLock(trx: Kysely<Database>, key: number): Promise<boolean> {
  const { rows } = await sql<{ locked: boolean }>`
    select pg_try_advisory_xact_lock(${sql.lit(key)}) as locked`.execute(trx);
  return rows[0]?.locked === true;
}

export async function readProgress(db: Kysely<Database>): Promise<Partial<Record<RollupPeriod, Date>>> {
  const rows = await db
    .selectFrom("monitor_rollups")
    .select(["period", "bucket"])
    .where("monitor_seq", "=", PROGRESS_SEQ)
    .execute();
  return Object.fromEntries(rows.map((r) => [r.period, toDate(r.bucket)]));
}

export async function setProgress(trx: Kysely<Database>, period: RollupPeriod, next: Date): Promise<void> {
  const moved = await trx
    .updateTable("monitor_rollups")
    .set({ bucket: next })
    .where("monitor_seq", "=", PROGRESS_SEQ)
    .where("period", "=", period)
    .executeTakeFirst();
  if (Number(moved.numUpdatedRows) > 0) return;
  await trx
    .insertInto("monitor_rollups")
    .values({ monitor_seq: PROGRESS_SEQ, period, bucket: next, runs: 0, failures: 0 })
    .execute();
}

/** The oldest raw slot at or after `from` and before `to` (`monitor_runs_slot_idx`), or null. */
export async function firstSlot(db: Kysely<Database>, from: Date | null, to: Date): Promise<Date | null> {
  let q = db
    .selectFrom("monitor_runs")
    .select((eb) => eb.fn.min("slot").as("slot"))
    .where("slot", "<", to);
  if (from) q = q.where("slot", ">=", from);
  const row = await q.executeTakeFirst();
  return row?.slot ? toDate(row.slot) : null;
}

/** The highest monitor seq holding roll-ups (the primary key's first column: one index probe). */
export async function maxRollupSeq(db: Kysely<Database>): Promise<number> {
  const row = await db
    .selectFrom("monitor_rollups")
    .select((eb) => eb.fn.max("monitor_seq").as("seq"))
    .executeTakeFirst();
  return Number(row?.seq ?? 0);
}

// ---- Rolling up ----

const upsert = sql`
  on conflict (monitor_seq, period, bucket) do update set
    runs = excluded.runs, failures = excluded.failures,
    latency_p50 = excluded.latency_p50, latency_p95 = excluded.latency_p95
  where (monitor_rollups.runs, monitor_rollups.failures, monitor_rollups.latency_p50, monitor_rollups.latency_p95)
    is distinct from (excluded.runs, excluded.failures, excluded.latency_p50, excluded.latency_p95)`;

/**
 * One `minute` bucket for every monitor with runs in `[bucket, end)`, from the raw rows (read by `slot`
 * through `monitor_runs_slot_idx`): runs = slots, failures by the majority rule, exact percentiles.
 */
export async function rollUpRaw(trx: Kysely<Database>, bucket: Date, end: Date): Promise<number> {
  const res = await sql`
    with raw as (
      select monitor_seq, slot, success, latency_ms from monitor_runs where slot >= ${bucket} and slot < ${end}
    ), slots as (
      select monitor_seq, 2 * count(*) filter (where success) > count(*) as passed
      from raw group by monitor_seq, slot
    ), counts as (
      select monitor_seq, count(*)::int as runs, (count(*) filter (where not passed))::int as failures
      from slots group by monitor_seq
    ), latencies as (
      select monitor_seq,
        percentile_cont(0.5) within group (order by latency_ms) as p50,
        percentile_cont(0.95) within group (order by latency_ms) as p95
      from raw where success and latency_ms is not null group by monitor_seq
    )
    insert into monitor_rollups (monitor_seq, period, bucket, runs, failures, latency_p50, latency_p95)
    select c.monitor_seq, 'minute', ${bucket}, c.runs, c.failures, l.p50, l.p95
    from counts c left join latencies l on l.monitor_seq = c.monitor_seq
    ${upsert}`.execute(trx);
  return Number(res.numAffectedRows ?? 0);
}

/**
 * One `target` bucket `[bucket, end)` from the `source` buckets inside it, for the next `batch` monitors
 * after seq `after` (one primary-key range probe each). Percentiles are the buckets' percentiles averaged,
 * weighted by their runs: an approximation. Returns the batch's last seq (null: no monitors left).
 */
export async function rollUpBuckets(
  trx: Kysely<Database>,
  source: RollupPeriod,
  target: RollupPeriod,
  bucket: Date,
  end: Date,
  after: number,
  batch: number,
): Promise<{ last: number | null }> {
  const { rows } = await sql<{ last: string | number | null }>`
    with monitors_batch as (
      select seq from monitors where seq > ${after} order by seq limit ${batch}
    ), rolled as (
      insert into monitor_rollups (monitor_seq, period, bucket, runs, failures, latency_p50, latency_p95)
      select m.seq, ${target}, ${bucket}, x.runs, x.failures, x.p50, x.p95
      from monitors_batch m
      cross join lateral (
        select sum(r.runs)::int as runs, sum(r.failures)::int as failures,
          sum(r.latency_p50::float8 * r.runs) filter (where r.latency_p50 is not null)
            / nullif(sum(r.runs) filter (where r.latency_p50 is not null), 0) as p50,
          sum(r.latency_p95::float8 * r.runs) filter (where r.latency_p95 is not null)
            / nullif(sum(r.runs) filter (where r.latency_p95 is not null), 0) as p95
        from monitor_rollups r
        where r.monitor_seq = m.seq and r.period = ${source} and r.bucket >= ${bucket} and r.bucket < ${end}
      ) x
      where x.runs is not null
      ${upsert}
    )
    select max(seq) as last from monitors_batch`.execute(trx);
  const last = rows[0]?.last;
  return { last: last === null || last === undefined ? null : Number(last) };
}

// ---- Retention ----

/** Deletes up to `limit` raw rows with a slot before `cut`, oldest first (by `monitor_runs_slot_idx`). */
export async function deleteRawBefore(trx: Kysely<Database>, cut: Date, limit: number): Promise<number> {
  const res = await sql`
    delete from monitor_runs where ctid = any(array(
      select ctid from monitor_runs where slot < ${cut} order by slot limit ${limit}
    ))`.execute(trx);
  return Number(res.numAffectedRows ?? 0);
}

/** Deletes up to `limit` `period` buckets before `cut` of the monitors with seq in `[seqFrom, seqTo]`. */
export async function deleteBucketsBefore(
  trx: Kysely<Database>,
  period: RollupPeriod,
  cut: Date,
  seqFrom: number,
  seqTo: number,
  limit: number,
): Promise<number> {
  const res = await sql`
    delete from monitor_rollups where ctid = any(array(
      select r.ctid from generate_series(${seqFrom}::bigint, ${seqTo}::bigint) as s(seq)
      cross join lateral (
        select ctid from monitor_rollups
        where monitor_seq = s.seq and period = ${period} and bucket < ${cut}
      ) r
      limit ${limit}
    ))`.execute(trx);
  return Number(res.numAffectedRows ?? 0);
}

// ---- Reads ----

export interface ResultsMonitor {
  seq: string;
  owner_id: string;
  state: MonitorState;
  state_changed_at: Date | null;
}

export async function findMonitor(db: Kysely<Database>, id: string): Promise<ResultsMonitor | undefined> {
  const row = await db
    .selectFrom("monitors")
    .select(["seq", "owner_id", "state", "state_changed_at"])
    .where("id", "=", id)
    .executeTakeFirst();
  if (!row) return undefined;
  return {
    seq: String(row.seq),
    owner_id: row.owner_id,
    state: row.state,
    state_changed_at: row.state_changed_at ? toDate(row.state_changed_at) : null,
  };
}

export interface NodeRunRow {
  slot: Date;
  node_id: string;
  success: boolean;
  latency_ms: number | null;
  error_code: string | null;
  status_code: number | null;
}

/** Every node row of the monitor's newest `slots` slots, newest slot first, nodes by id. */
export async function newestRuns(db: Kysely<Database>, seq: string, slots: number): Promise<NodeRunRow[]> {
  const { rows } = await sql<{
    slot: Date | string;
    node_id: string;
    success: boolean;
    latency_ms: number | string | null;
    error_code: string | null;
    status_code: number | null;
  }>`
    select slot, node_id, success, latency_ms, error_code, status_code from monitor_runs
    where monitor_seq = ${seq} and slot >= (
      select min(slot) from (
        select distinct slot from monitor_runs where monitor_seq = ${seq} order by slot desc limit ${slots}
      ) newest
    )
    order by slot desc, node_id`.execute(db);
  return rows.map((r) => ({ ...r, slot: toDate(r.slot), latency_ms: toNum(r.latency_ms) }));
}

/**
 * Runs, failures and latency of a stretch of time, with the percentiles' weight (runs) so that stretches
 * combine: a combined percentile is the weighted mean of theirs.
 */
export interface Totals {
  runs: number;
  failures: number;
  /** Runs of the parts that have latency figures (percentiles are null where no node passed). */
  latencyWeight: number;
  p50Sum: number;
  p95Sum: number;
}

/** The monitor's `period` buckets starting in `[from, to)`. */
export async function bucketTotals(
  db: Kysely<Database>,
  seq: string,
  period: RollupPeriod,
  from: Date,
  to: Date,
): Promise<Totals> {
  const { rows } = await sql<Record<keyof Totals, number | string | null>>`
    select coalesce(sum(runs), 0) as runs, coalesce(sum(failures), 0) as failures,
      coalesce(sum(runs) filter (where latency_p50 is not null), 0) as "latencyWeight",
      coalesce(sum(latency_p50::float8 * runs) filter (where latency_p50 is not null), 0) as "p50Sum",
      coalesce(sum(latency_p95::float8 * runs) filter (where latency_p95 is not null), 0) as "p95Sum"
    from monitor_rollups
    where monitor_seq = ${seq} and period = ${period} and bucket >= ${from} and bucket < ${to}`.execute(db);
  const r = rows[0];
  return {
    runs: Number(r?.runs ?? 0),
    failures: Number(r?.failures ?? 0),
    latencyWeight: Number(r?.latencyWeight ?? 0),
    p50Sum: Number(r?.p50Sum ?? 0),
    p95Sum: Number(r?.p95Sum ?? 0),
  };
}

/** The monitor's raw runs with a slot in `[from, to)`, exact: majority per slot, percentiles over nodes. */
export async function rawTotals(db: Kysely<Database>, seq: string, from: Date, to: Date): Promise<Totals> {
  const { rows } = await sql<{ runs: number; failures: number; p50: number | null; p95: number | null }>`
    with raw as (
      select slot, success, latency_ms from monitor_runs
      where monitor_seq = ${seq} and slot >= ${from} and slot < ${to}
    ), slots as (
      select 2 * count(*) filter (where success) > count(*) as passed from raw group by slot
    )
    select (select count(*)::int from slots) as runs,
      (select (count(*) filter (where not passed))::int from slots) as failures,
      (select percentile_cont(0.5) within group (order by latency_ms) from raw
        where success and latency_ms is not null) as p50,
      (select percentile_cont(0.95) within group (order by latency_ms) from raw
        where success and latency_ms is not null) as p95`.execute(db);
  const r = rows[0];
  const runs = Number(r?.runs ?? 0);
  const p50 = toNum(r?.p50 ?? null);
  const p95 = toNum(r?.p95 ?? null);
  const weight = p50 === null ? 0 : runs;
  return {
    runs,
    failures: Number(r?.failures ?? 0),
    latencyWeight: weight,
    p50Sum: (p50 ?? 0) * weight,
    p95Sum: (p95 ?? 0) * weight,
  };
}

/** Each node's newest run of the monitor since `from`: the per-node state. */
export async function latestPerNode(
  db: Kysely<Database>,
  seq: string | number,
  from: Date,
): Promise<
  {
    node_id: string;
    slot: Date | string;
    success: boolean;
    error_code: string | null;
    status_code: number | null;
  }[]
> {
  const { rows } = await sql<{
    node_id: string;
    slot: Date | string;
    success: boolean;
    error_code: string | null;
    status_code: number | null;
  }>`
    select distinct on (node_id) node_id, slot, success, error_code, status_code from monitor_runs
    where monitor_seq = ${String(seq)} and slot >= ${from}
    order by node_id, slot desc`.execute(db);
  return rows;
}
