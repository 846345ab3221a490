import { type Kysely, sql } from "kysely";
import { notify, STATE_CHANGES_CHANNEL } from "../../db/notify.js";
import type { Database } from "../../db/schema.js";
import type { MonitorState, MonitorStateReason } from "../../db/tables/monitors.js";
import { newId } from "../../lib/ids.js";
import { type PollLoop, startPollLoop } from "../../lib/poll-loop.js";

export interface StaleReport {
  /** Monitors made `unknown` by this sweep, by reason. */
  marked: number;
  reasons: Partial<Record<MonitorStateReason, number>>;
}

/**
 * The grace after two intervals, seconds: time for the run of the slot before to be written (dispatch lag,
 * the probe, the writer's batch). A quarter of the interval, at most 5 s, so that with the sweep's pause
 * (`sweepPauseMs`, at most an eighth of the shortest interval once a deadline is near) a stale spell is
 * marked within two intervals of its first slot with no run, with at least half an interval to spare for a
 * loaded machine.
 */
export const STALE_GRACE = { fraction: 0.25, maxS: 5 } as const;

/** The grace for an interval (seconds): see `STALE_GRACE`. */
export const staleGraceS = (intervalS: number): number =>
  Math.min(intervalS * STALE_GRACE.fraction, STALE_GRACE.maxS);

/** The monitors the sweep may mark (active, or paused by the system) and that are not stale yet. */
const sweepable = sql`(status = 'active' or (status = 'paused' and paused_reason is not null))
  and state_reason is null`;

/**
 * When a monitor becomes stale: its clock's start plus two intervals and the grace (`staleGraceS`). A run
 * that may take longer than the interval (`run_budget_s`, e.g. a 30 s timeout every 10 s) is waited for in
 * full: the second interval is then that run's budget.
 */
const staleAt = sql`greatest(coalesce(last_slot, created_at), updated_at)
  + make_interval(secs => interval_s + greatest(interval_s, run_budget_s)
    + least(interval_s * ${sql.lit(STALE_GRACE.fraction)}, ${sql.lit(STALE_GRACE.maxS)}))`;

/**
 * Honest state: a monitor whose newest completed run's slot is more than two intervals old, plus a grace
 * (`staleGraceS`: a quarter of an interval, at most 5 s, for the run of the slot before to be written),
 * becomes `unknown` with a reason, its streaks reset, and a `monitor_state_changes` row (to `unknown`, the
 * reason, the sweep's time as its slot) that the notifier turns into `monitor_stale` events. Counted from
 * the first slot with no run (`last_slot + interval`) that is one interval and the grace, so with the
 * sweep's pause the spell is marked within two intervals of it. The reason, read from the monitor's row:
 *
 * - `paused_by_system`: the system paused it (`paused_reason`, e.g. an agent crash); a person's pause is
 *   not stale.
 * - `scheduler_behind`: its `next_run_at` is more than an interval past: no scheduler claimed its slots.
 * - `no_nodes`: its slots were claimed on time but no run completed (no node online, or none could run it).
 *
 * The clock starts at the newest of the last applied slot, the creation and the last change (a resume or an
 * interval change starts it afresh). A monitor already stale is not marked again until a run decides it;
 * several sweeps at once skip each other's rows (FOR UPDATE SKIP LOCKED), so each stale spell is one change.
 */
export async function markStale(db: Kysely<Database>, now: Date, batch = 1000): Promise<StaleReport> {
  return db.transaction().execute(async (tx) => {
    const { rows } = await sql<{ id: string; state: MonitorState; reason: MonitorStateReason }>`
      select id, state,
        case
          when status = 'paused' then 'paused_by_system'
          when next_run_at < cast(${now} as timestamptz) - make_interval(secs => interval_s) then 'scheduler_behind'
          else 'no_nodes'
        end as reason
      from monitors
      where ${sweepable} and ${staleAt} < cast(${now} as timestamptz)
      order by id
      limit ${batch}
      for update skip locked`.execute(tx);
    if (rows.length === 0) return { marked: 0, reasons: {} };
    await sql`
      update monitors m set state = 'unknown', state_reason = s.reason, fail_streak = 0, pass_streak = 0,
        state_changed_at = cast(${now} as timestamptz)
      from unnest(cast(${rows.map((r) => r.id)} as text[]), cast(${rows.map((r) => r.reason)} as text[]))
        as s(id, reason)
      where m.id = s.id`.execute(tx);
    await sql`
      insert into monitor_state_changes (id, monitor_id, slot, from_state, to_state, reason)
      select s.id, s.monitor_id, cast(${now} as timestamptz), s.from_state, 'unknown', s.reason
      from unnest(
        cast(${rows.map(() => newId("msc"))} as text[]),
        cast(${rows.map((r) => r.id)} as text[]),
        cast(${rows.map((r) => r.state)} as text[]),
        cast(${rows.map((r) => r.reason)} as text[])
      ) as s(id, monitor_id, from_state, reason)
      on conflict (monitor_id, slot) do nothing`.execute(tx);
    await notify(tx, STATE_CHANGES_CHANNEL, "");
    const reasons: StaleReport["reasons"] = {};
    for (const r of rows) reasons[r.reason] = (reasons[r.reason] ?? 0) + 1;
    return { marked: rows.length, reasons };
  });
}

/** What the sweep needs to time its next round: the earliest stale deadline and the shortest interval. */
export interface StaleOutlook {
  /** Ms from `now` until the first sweepable monitor becomes stale (≤ 0: due); null when none is sweepable. */
  untilNextMs: number | null;
  /** The shortest interval among them, seconds; null when none. */
  shortestIntervalS: number | null;
}

/** One read, no locks: when the next monitor becomes stale, and the shortest interval to watch. */
export async function staleOutlook(db: Kysely<Database>, now: Date): Promise<StaleOutlook> {
  const { rows } = await sql<{ ms: number | string | null; shortest: number | string | null }>`
    select extract(epoch from (min(${staleAt}) - cast(${now} as timestamptz))) * 1000 as ms,
      min(interval_s) as shortest
    from monitors where ${sweepable}`.execute(db);
  const r = rows[0];
  const num = (v: number | string | null | undefined) => (v === null || v === undefined ? null : Number(v));
  return { untilNextMs: num(r?.ms), shortestIntervalS: num(r?.shortest) };
}

/** The shortest pause between sweeps, ms (a due monitor held by another sweep is not polled faster). */
export const SWEEP_MIN_MS = 250;

/**
 * The pause before the next sweep: until the earliest stale deadline, but at least an eighth of the
 * shortest interval (250 ms at the least) and at most `maxMs`. Nothing near: `maxMs`, one cheap read a
 * round. A monitor created since (with a shorter interval than any before) is seen within `maxMs`.
 */
export function sweepPauseMs(outlook: StaleOutlook, maxMs: number): number {
  if (outlook.untilNextMs === null || outlook.shortestIntervalS === null) return maxMs;
  const floor = Math.min(Math.max((outlook.shortestIntervalS * 1000) / 8, SWEEP_MIN_MS), maxMs);
  // A few ms after the deadline, so that the sweep finds it past (`<`), not on it.
  return Math.min(Math.max(outlook.untilNextMs + 5, floor), maxMs);
}

/**
 * The sweep (the scheduler role's): mark what is stale, then sleep until the next monitor's deadline
 * (`sweepPauseMs`), at most `maxMs`; errors go to `onError` and the next round tries again.
 */
export function startStaleSweep(
  db: Kysely<Database>,
  maxMs: number,
  onError: (err: unknown) => void,
  now: () => number = Date.now,
): PollLoop {
  let stopped = false;
  let pause = maxMs;
  const loop = startPollLoop({
    // One sweep marks at most 1,000 monitors; a round goes on while there are more, until stopped.
    round: async () => {
      pause = maxMs;
      let outlook = await staleOutlook(db, new Date(now()));
      if (outlook.untilNextMs !== null && outlook.untilNextMs <= 0) {
        while (!stopped && (await markStale(db, new Date(now()))).marked >= 1000);
        outlook = await staleOutlook(db, new Date(now()));
      }
      pause = sweepPauseMs(outlook, maxMs);
    },
    onError,
    everyMs: () => pause,
    // Waking early would only find nothing due; controllers drift apart through their own deadlines' reads.
    jitter: 0,
    immediate: false,
  });
  return {
    stop() {
      stopped = true;
      return loop.stop();
    },
    wake: () => loop.wake(),
  };
}

export interface StaleSpell {
  from: Date;
  /** When a run decided the state again; null while the spell lasts. */
  to: Date | null;
  reason: MonitorStateReason;
}

/**
 * A monitor's stale spells overlapping `[from, to)`: each change to `unknown` with a reason, until the
 * monitor's next state change (a run deciding again). The uptime shows them as unknown time: no run, so
 * neither up nor down.
 */
export async function staleSpells(
  db: Kysely<Database>,
  monitorId: string,
  from: Date,
  to: Date,
): Promise<StaleSpell[]> {
  const { rows } = await sql<{
    start: Date | string;
    until_at: Date | string | null;
    reason: MonitorStateReason;
  }>`
    select c.slot as start, c.reason, (
      select min(n.slot) from monitor_state_changes n where n.monitor_id = c.monitor_id and n.slot > c.slot
    ) as until_at
    from monitor_state_changes c
    where c.monitor_id = ${monitorId} and c.reason is not null and c.slot < cast(${to} as timestamptz)
    order by c.slot`.execute(db);
  return rows
    .map((r) => ({
      from: new Date(r.start),
      to: r.until_at === null ? null : new Date(r.until_at),
      reason: r.reason,
    }))
    .filter((s) => s.to === null || s.to.getTime() > from.getTime());
}

/** How much of `[from, to)` the spells cover, ms. */
export function unknownMs(spells: readonly StaleSpell[], from: number, to: number): number {
  let ms = 0;
  for (const s of spells) {
    const a = Math.max(s.from.getTime(), from);
    const b = Math.min(s.to?.getTime() ?? to, to);
    if (b > a) ms += b - a;
  }
  return ms;
}
