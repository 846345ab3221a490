import type { Kysely } from "kysely";
import type { Logger } from "pino";
import { logRoundFailure } from "../../db/availability.js";
import { LEASE_TTL_MS, leaseRenewMs } from "../../db/lease.js";
import type { Database } from "../../db/schema.js";
import { startPollLoop } from "../../lib/poll-loop.js";
import { deleteExpiredTasks, failAbandonedTasks } from "./repo.js";

/**
 * A task's nodes answer or time out within two minutes (agents cap every job at 110 s); a task without a
 * controller lease still `queued` or `running` ten minutes after it was created lost its controller.
 */
export const ABANDONED_AFTER_MS = 10 * 60_000;
/**
 * How often the scheduler role sweeps (a cheap update over the partial index of unfinished tasks): every
 * 5 s, or as often as leases are renewed when they live less than 20 s.
 */
export const sweepEveryMs = (leaseTtlMs: number): number => Math.min(5000, leaseRenewMs(leaseTtlMs));

/** Tasks the retention deletes per statement; a full batch is followed by the next at the next round. */
export const RETENTION_BATCH = 2000;
/** How often the retention looks for expired tasks while the last look found fewer than a batch. */
export const RETENTION_EVERY_MS = 60_000;

export interface TaskSweeper {
  /**
   * Marks abandoned tasks `failed`, resolves with how many; and, when due, deletes expired tasks (see
   * `expireOnce`).
   */
  runOnce(now?: Date): Promise<number>;
  /**
   * Deletes one batch of tasks older than the retention (`retentionDays`; 0 keeps every task), except those
   * with a live share link; resolves with how many went.
   */
  expireOnce(now?: Date): Promise<number>;
  stop(): Promise<void>;
}

/**
 * Runs at start and then every `intervalMs` (scheduler role); several controllers may run it at once (a
 * task two of them expire at once is deleted once).
 *
 * Leases are judged only once this sweeper has reached the database without a failure for a whole lease
 * lifetime: after an outage every live controller renews its lease within a second or two, but until
 * then all leases look stale, and sweeping on them would fail tasks whose controllers are alive.
 */
export function startTaskSweeper(opts: {
  db: Kysely<Database>;
  log: Logger;
  intervalMs?: number;
  poll?: boolean;
  /** How long an unrenewed controller lease counts as alive (`VANTAGE_CONTROLLER_LEASE_MS`). */
  leaseTtlMs?: number;
  /** Days a task is kept (`VANTAGE_PROBE_RETENTION_DAYS`); 0 keeps them all. */
  retentionDays?: number;
}): TaskSweeper {
  const ttl = opts.leaseTtlMs ?? LEASE_TTL_MS;
  const retentionMs = (opts.retentionDays ?? 0) * 86_400_000;
  let reachableSince: number | undefined;
  /** When the retention is next due: at once after a full batch, else a minute after its last look. */
  let expireDueAt = 0;
  const expireOnce = async (now = new Date()) => {
    if (retentionMs <= 0) return 0;
    const n = await deleteExpiredTasks(opts.db, new Date(now.getTime() - retentionMs), RETENTION_BATCH);
    expireDueAt = n >= RETENTION_BATCH ? 0 : now.getTime() + RETENTION_EVERY_MS;
    if (n > 0) opts.log.info({ tasks: n, retention_days: opts.retentionDays }, "expired probe tasks deleted");
    return n;
  };
  const runOnce = async (now = new Date()) => {
    const t = now.getTime();
    let n: number;
    try {
      n = await failAbandonedTasks(opts.db, {
        now,
        olderThan: new Date(t - ABANDONED_AFTER_MS),
        leaseFreshAfter: new Date(t - ttl),
        leases: reachableSince !== undefined && t - reachableSince >= ttl,
      });
    } catch (err) {
      reachableSince = undefined;
      throw err;
    }
    reachableSince ??= t;
    if (n > 0)
      opts.log.warn({ tasks: n }, "probe tasks left unfinished by a stopped controller marked failed");
    if (retentionMs > 0 && t >= expireDueAt) await expireOnce(now);
    return n;
  };
  const loop =
    (opts.poll ?? true)
      ? startPollLoop({
          round: runOnce,
          everyMs: opts.intervalMs ?? sweepEveryMs(ttl),
          onError: (err) =>
            logRoundFailure(opts.log, err, "sweeping probe tasks (abandoned, expired) failed; trying again"),
        })
      : undefined;
  return {
    runOnce,
    expireOnce,
    async stop() {
      await loop?.stop();
    },
  };
}
