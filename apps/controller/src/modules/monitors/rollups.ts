import type { Kysely } from "kysely";
import { logRoundFailure } from "../../db/availability.js";
import type { Database } from "../../db/schema.js";
import { type PollLoop, startPollLoop } from "../../lib/poll-loop.js";
import type { MonitorsContext } from "./context.js";
import type { RollupPeriod } from "./results-repo.js";
import * as repo from "./results-repo.js";

/** The roll-up job's advisory lock ("vmru"): one controller rolls up and trims at a time. */
export const ROLLUP_LOCK_KEY = 0x766d7275;
/**
 * A minute is rolled up this long after it ended: a run's rows arrive after its slot (a probe takes up to
 * 61 s, the writer batches), and a row arriving after its minute was rolled up is missing from the buckets.
 */
export const ROLLUP_SETTLE_MS = 2 * 60_000;
/** How long each period's buckets are kept. */
export const BUCKET_RETENTION_MS: Record<RollupPeriod, number> = {
  minute: 2 * 86_400_000,
  hour: 90 * 86_400_000,
  day: 400 * 86_400_000,
};

const SIZE_MS: Record<RollupPeriod, number> = { minute: 60_000, hour: 3_600_000, day: 86_400_000 };
/** Where each period's buckets come from: minutes from raw runs, hours from minutes, days from hours. */
const SOURCE: Record<RollupPeriod, RollupPeriod | "raw"> = { minute: "raw", hour: "minute", day: "hour" };
/** How often a controller sweeps old buckets of each period (a sweep probes every monitor's key once). */
const SWEEP_EVERY_MS: Record<RollupPeriod, number> = { minute: 3_600_000, hour: 86_400_000, day: 86_400_000 };
/** Rows per delete statement, and monitors per roll-up or sweep statement: no statement runs long. */
const DELETE_BATCH = 10_000;
const MONITOR_BATCH = 2000;
const SWEEP_SEQ_RANGE = 10_000;
/** A run rolls up for at most half of this, then deletes until all of it has passed; the rest waits. */
const DEFAULT_BUDGET_MS = 20_000;

export interface RollupReport {
  /** Another controller held the lock: this run stopped there (what it did before that is counted). */
  skipped: boolean;
  /** Buckets rolled up per period (each for every monitor with runs in it). */
  rolled: Record<RollupPeriod, number>;
  /** Rows deleted: raw runs, and buckets per period. */
  deleted: { runs: number } & Record<RollupPeriod, number>;
  /** Work left for the next run (the time budget ran out, or a stop was asked for). */
  more: boolean;
}

export interface RollupJob {
  /** Runs at once and then every `everyMs` (a run in flight is never doubled); the timer is unref'd. */
  start(): Promise<void>;
  /** Stops the timer and waits for a run in flight, which ends at its next step. */
  stop(): Promise<void>;
  runOnce(now?: Date): Promise<RollupReport>;
}

const floorTo = (t: number, size: number) => t - (((t % size) + size) % size);
const at = (t: number) => new Date(t);

class LockHeld extends Error {}

/**
 * The monitors' roll-up and retention job (scheduler role). Each run:
 * 1. rolls up every settled minute, completed hour and completed UTC day not rolled up yet — the periods'
 *    progress is stored with the buckets (see `results-repo.ts`), so a run starts where the last ended, and
 *    empty stretches are skipped by one look at `monitor_runs_slot_idx`; a bucket is written by upsert, so
 *    rolling one up again (a crash before the progress moved, two controllers) writes the same rows;
 * 2. deletes raw runs older than `retentionDays` (never before their day is rolled up) and buckets past
 *    their period's retention (never before they are rolled into the next period), in batches.
 * Every step is its own short transaction that first takes `pg_try_advisory_xact_lock(ROLLUP_LOCK_KEY)`;
 * when another controller holds it the run stops, and that controller carries on from the same progress.
 */
export function createRollupJob(
  ctx: MonitorsContext,
  opts: { retentionDays: number; everyMs?: number; budgetMs?: number },
): RollupJob {
  const db = ctx.db;
  const budgetMs = opts.budgetMs ?? DEFAULT_BUDGET_MS;
  const lastSweep: Partial<Record<RollupPeriod, number>> = {};
  const sweeps: Partial<Record<RollupPeriod, { cut: Date; nextSeq: number }>> = {};
  let stopping = false;

  /** `fn` in a transaction holding the job's lock; throws `LockHeld` when another controller has it. */
  const locked = <T>(fn: (trx: Kysely<Database>) => Promise<T>): Promise<T> =>
    db.transaction().execute(async (trx) => {
      if (!(await repo.tryJobLock(trx, ROLLUP_LOCK_KEY))) throw new LockHeld();
      return fn(trx);
    });

  /** Where `period` may roll up to (exclusive): settled minutes; hours and days once their parts are in. */
  function limitOf(period: RollupPeriod, progress: Partial<Record<RollupPeriod, Date>>, now: number) {
    const source = SOURCE[period];
    if (source === "raw") return floorTo(now - ROLLUP_SETTLE_MS, SIZE_MS.minute);
    const done = progress[source];
    return done ? floorTo(done.getTime(), SIZE_MS[period]) : undefined;
  }

  /** Rolls up the next bucket of `period` that has runs; false when it is caught up. */
  const rollNext = (period: RollupPeriod, now: number): Promise<boolean> =>
    locked(async (trx) => {
      const size = SIZE_MS[period];
      const progress = await repo.readProgress(trx);
      const limit = limitOf(period, progress, now);
      if (limit === undefined) return false;
      let from = progress[period]?.getTime();
      if (from === undefined) {
        const oldest = await repo.firstSlot(trx, null, at(limit));
        from = oldest ? floorTo(oldest.getTime(), size) : limit;
      }
      const next = from < limit ? await repo.firstSlot(trx, at(from), at(limit)) : null;
      if (!next) {
        // Caught up: the progress moves to the limit (never back, whatever `now` a caller passes).
        const done = Math.max(from, limit);
        if (progress[period]?.getTime() !== done) await repo.setProgress(trx, period, at(done));
        return false;
      }
      const bucket = floorTo(next.getTime(), size);
      const source = SOURCE[period];
      if (source === "raw") await repo.rollUpRaw(trx, at(bucket), at(bucket + size));
      else {
        let after = 0;
        for (;;) {
          const batch = await repo.rollUpBuckets(
            trx,
            source,
            period,
            at(bucket),
            at(bucket + size),
            after,
            MONITOR_BATCH,
          );
          if (batch.last === null) break;
          after = batch.last;
        }
      }
      await repo.setProgress(trx, period, at(bucket + size));
      return true;
    });

  /** Deletes the next batch of what is past retention; false when nothing is left. */
  async function deleteRaw(now: number, report: RollupReport): Promise<boolean> {
    return locked(async (trx) => {
      const dayDone = (await repo.readProgress(trx)).day;
      if (!dayDone) return false;
      const cut = Math.min(now - opts.retentionDays * 86_400_000, dayDone.getTime());
      const n = await repo.deleteRawBefore(trx, at(cut), DELETE_BATCH);
      report.deleted.runs += n;
      return n === DELETE_BATCH;
    });
  }

  /** One statement of the sweep of `period`'s old buckets (started when due); false when it is done. */
  async function sweepNext(period: RollupPeriod, now: number, report: RollupReport): Promise<boolean> {
    return locked(async (trx) => {
      let sweep = sweeps[period];
      if (!sweep) {
        if (now - (lastSweep[period] ?? -Infinity) < SWEEP_EVERY_MS[period]) return false;
        const progress = await repo.readProgress(trx);
        let cut = now - BUCKET_RETENTION_MS[period];
        // Never a bucket that the next period has not taken in yet.
        const next = period === "minute" ? progress.hour : period === "hour" ? progress.day : undefined;
        if (period !== "day") cut = Math.min(cut, next?.getTime() ?? -Infinity);
        lastSweep[period] = now;
        if (!Number.isFinite(cut)) return false;
        sweep = { cut: at(cut), nextSeq: 1 };
        sweeps[period] = sweep;
      }
      const last = await repo.maxRollupSeq(trx);
      const to = sweep.nextSeq + SWEEP_SEQ_RANGE - 1;
      const n = await repo.deleteBucketsBefore(trx, period, sweep.cut, sweep.nextSeq, to, DELETE_BATCH);
      report.deleted[period] += n;
      if (n < DELETE_BATCH) sweep.nextSeq = to + 1;
      if (sweep.nextSeq > last) {
        delete sweeps[period];
        return false;
      }
      return true;
    });
  }

  async function runOnce(nowDate = new Date(ctx.now())): Promise<RollupReport> {
    const now = nowDate.getTime();
    const started = Date.now();
    const report: RollupReport = {
      skipped: false,
      rolled: { minute: 0, hour: 0, day: 0 },
      deleted: { runs: 0, minute: 0, hour: 0, day: 0 },
      more: false,
    };
    const within = (share: number) => !stopping && Date.now() - started < budgetMs * share;
    /** Repeats `step` while it has more to do and time is left; notes when it stopped with work left. */
    const drain = async (share: number, step: () => Promise<boolean>, count?: () => void) => {
      for (;;) {
        if (!within(share)) {
          report.more = true;
          return;
        }
        if (!(await step())) return;
        count?.();
      }
    };
    try {
      for (const period of ["minute", "hour", "day"] as const) {
        await drain(
          0.5,
          () => rollNext(period, now),
          () => report.rolled[period]++,
        );
      }
      await drain(1, () => deleteRaw(now, report));
      for (const period of ["minute", "hour", "day"] as const) {
        await drain(1, () => sweepNext(period, now, report));
      }
    } catch (err) {
      if (!(err instanceof LockHeld)) throw err;
      report.skipped = true;
    }
    return report;
  }

  let loop: PollLoop | undefined;
  const round = async () => {
    const r = await runOnce();
    if (r.more) ctx.log.info({ rollups: r }, "monitor roll-ups behind: continuing in the next run");
  };

  return {
    runOnce,
    async start() {
      if (loop) return;
      stopping = false;
      loop = startPollLoop({
        round,
        everyMs: opts.everyMs ?? 60_000,
        onError: (err) =>
          logRoundFailure(ctx.log, err, "monitor roll-up or retention run failed; trying again"),
      });
    },
    async stop() {
      stopping = true;
      await loop?.stop();
      loop = undefined;
    },
  };
}
