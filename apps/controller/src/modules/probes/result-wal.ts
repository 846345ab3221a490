import type { ResultsLog } from "@vantage/transport";
import type { Kysely } from "kysely";
import type { Logger } from "pino";
import { logRoundFailure } from "../../db/availability.js";
import { LEASE_TTL_MS } from "../../db/lease.js";
import type { Database } from "../../db/schema.js";
import { type PollLoop, startPollLoop } from "../../lib/poll-loop.js";
import type { BackgroundWork } from "./background.js";
import { confirmSignatures } from "./dispatch.js";
import { insertFinishedTasks, type TaskRecord } from "./repo.js";

/** After a failed append, tasks skip the log for this long (an answer never waits on a broken JetStream). */
const PAUSE_AFTER_FAILURE_MS = 5000;
/**
 * Stored records are purged at most this often: one JetStream purge per second instead of one per writer
 * batch (tens a second under load), which cost the answers on the same cores. Records kept a little
 * longer cost nothing: only a dead controller's are ever read.
 */
const RELEASE_EVERY_MS = 1000;

/**
 * This controller's side of the results write-ahead log (ADR 0012). A finished Form B task is appended to
 * the log, and the answer waits for the stream's ack; the result writer stores it as before (ADR 0003) and
 * reports each stored batch here, and the controller's records are then purged from the stream up to the
 * oldest one not yet stored. A controller killed with SIGKILL leaves its unstored records in the stream,
 * where `drainResultLogs` (scheduler role, any controller) finds them.
 *
 * A failed append (JetStream away, too slow) never fails the probe: the task goes on write-behind as it
 * would without a log, with a warning, and the log is skipped for a few seconds.
 */
export class ResultWal {
  /** Sequence of each appended task not stored yet. */
  private readonly seqOf = new Map<string, number>();
  private maxAcked = 0;
  private releasedBelow = 0;
  private releasing = false;
  private lastRelease = 0;
  private pausedUntil = 0;

  constructor(
    private readonly log: ResultsLog,
    private readonly controllerId: string,
    private readonly background: BackgroundWork,
    private readonly logger: Logger,
  ) {}

  /** Appends the task; resolves once the stream holds it, or once it is clear it will not (logged). */
  async append(task: TaskRecord): Promise<void> {
    if (Date.now() < this.pausedUntil) return;
    try {
      const seq = await this.log.append(task);
      this.seqOf.set(task.id, seq);
      if (seq > this.maxAcked) this.maxAcked = seq;
    } catch (err) {
      if (Date.now() >= this.pausedUntil)
        this.logger.warn(
          { err, task_id: task.id, pause_ms: PAUSE_AFTER_FAILURE_MS },
          "results write-ahead log did not take a task; tasks are written behind the answer without it for now",
        );
      this.pausedUntil = Date.now() + PAUSE_AFTER_FAILURE_MS;
    }
  }

  /** The writer has stored (or given up) these tasks: their records may go. */
  stored(batch: readonly TaskRecord[]): void {
    for (const t of batch) this.seqOf.delete(t.id);
    this.release();
  }

  /**
   * Purges this controller's subject below its oldest unstored record. Appends still waiting for their ack
   * get a sequence above every one acked so far (one connection, answered in order), so they are kept.
   */
  private release(): void {
    if (this.releasing) return;
    this.releasing = true;
    this.background.run(async () => {
      try {
        const wait = this.lastRelease + RELEASE_EVERY_MS - Date.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        this.lastRelease = Date.now();
        for (let below = this.oldestUnstored(); below > this.releasedBelow; below = this.oldestUnstored()) {
          await this.log.release(this.controllerId, below);
          this.releasedBelow = below;
        }
      } catch (err) {
        this.logger.warn(
          { err },
          "stored results not purged from the write-ahead log; they are kept until later",
        );
      } finally {
        this.releasing = false;
      }
    });
  }

  private oldestUnstored(): number {
    let below = this.maxAcked + 1;
    for (const seq of this.seqOf.values()) if (seq < below) below = seq;
    return below;
  }
}

/**
 * A record read back from the log as it may be stored: the task as appended (its dates as ISO strings), each
 * signature checked. The appender checks them while its append is on its way, so the log may hold one that
 * does not verify (its key already matched the node's heartbeats): kept here only if it verifies.
 */
export function taskFromLog(record: unknown): TaskRecord {
  const r = record as TaskRecord & { created_at: string; finished_at: string | null };
  return {
    ...r,
    created_at: new Date(r.created_at),
    finished_at: r.finished_at === null ? null : new Date(r.finished_at),
    results: confirmSignatures(r.results),
  };
}

/**
 * Stores what controllers without a fresh lease (killed, or gone for good) left in the log, then purges it.
 * Safe on several controllers at once and against a controller that is alive after all: the insert skips
 * tasks already stored. Resolves with how many records were read.
 */
export async function drainResultLogs(opts: {
  log: ResultsLog;
  db: Kysely<Database>;
  ownId: string;
  batch?: number;
  /** How long an unrenewed controller lease counts as alive (`VANTAGE_CONTROLLER_LEASE_MS`). */
  leaseTtlMs?: number;
}): Promise<number> {
  const writers = await opts.log.writers();
  const ids = [...writers.keys()].filter((id) => id !== opts.ownId);
  if (ids.length === 0) return 0;
  const fresh = new Set(
    (
      await opts.db
        .selectFrom("controller_leases")
        .select("id")
        .where("id", "in", ids)
        .where("renewed_at", ">", new Date(Date.now() - (opts.leaseTtlMs ?? LEASE_TTL_MS)))
        .execute()
    ).map((r) => r.id),
  );
  let read = 0;
  for (const id of ids) {
    if (fresh.has(id)) continue;
    for (let from = 0; ; ) {
      const records = await opts.log.read(id, from, opts.batch ?? 200);
      if (records.length === 0) break;
      await insertFinishedTasks(
        opts.db,
        records.map((r) => taskFromLog(r.record)),
      );
      from = records.at(-1)!.seq + 1;
      await opts.log.release(id, from);
      read += records.length;
    }
  }
  return read;
}

/** Runs `drainResultLogs` at start and every `intervalMs` (scheduler role), on the shared poll loop. */
export function startResultLogDrain(opts: {
  log: ResultsLog;
  db: Kysely<Database>;
  ownId: string;
  logger: Logger;
  intervalMs: number;
  leaseTtlMs?: number;
}): PollLoop {
  return startPollLoop({
    everyMs: opts.intervalMs,
    async round() {
      const n = await drainResultLogs(opts);
      if (n > 0)
        opts.logger.warn(
          { tasks: n },
          "probe tasks a stopped controller had answered but not stored were stored from the write-ahead log",
        );
    },
    onError: (err) =>
      logRoundFailure(opts.logger, err, "draining the results write-ahead log failed; trying again"),
  });
}
