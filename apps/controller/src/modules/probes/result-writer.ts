import type { Kysely } from "kysely";
import type { Logger } from "pino";
import type { Database } from "../../db/schema.js";
import type { BackgroundWork } from "./background.js";
import { insertFinishedTasks, type TaskRecord } from "./repo.js";
import { WriteRetry } from "./write-retry.js";

export interface ResultWriterOptions {
  /** How long the first task of a batch waits for others to join it. */
  flushDelayMs?: number;
  /** Tasks per statement. */
  maxBatch?: number;
  /** Answered-but-unwritten tasks at which the writer is `full`: Form B takes no new probe (backpressure). */
  maxBacklog?: number;
  /**
   * Waits between attempts of a failed write; after the last one the batch is given up (logged). While the
   * database is away, writes are retried for as long as it takes (see `WriteRetry`), not by this list.
   */
  retryDelaysMs?: readonly number[];
  /** Shared with the other writers of the module: shutdown ends the retries. */
  retry?: WriteRetry;
  /** Called with each batch once it is stored or given up (the write-ahead log purges its records). */
  onSettled?: (batch: readonly TaskRecord[]) => void;
}

/**
 * How long a read of an unknown recent task id keeps looking before its 404: a write lands within the
 * flush delay plus one statement, so this covers another controller's buffer with room to spare.
 */
export const UNWRITTEN_GRACE_MS = 250;

const DEFAULT_FLUSH_DELAY_MS = 20;
const DEFAULT_RETRY_DELAYS_MS = [100, 250, 500, 1000, 2000, 5000, 10_000, 20_000];

/**
 * Writes Form B's finished tasks behind the answer (ADR 0003): the caller has its results as soon as the
 * last node has answered, and the tasks reach PostgreSQL moments later, many per statement. Until its
 * write lands, a task is served from memory by `peek`, so a read right after the answer sees it.
 */
export class ResultWriter {
  private readonly unwritten = new Map<string, TaskRecord>();
  private queue: TaskRecord[] = [];
  private flushing = false;
  private readonly flushDelayMs: number;
  private readonly maxBatch: number;
  private readonly maxBacklog: number;
  private readonly retryDelaysMs: readonly number[];
  private readonly retry: WriteRetry;
  private readonly onSettled: ((batch: readonly TaskRecord[]) => void) | undefined;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly background: BackgroundWork,
    private readonly log: Logger,
    opts: ResultWriterOptions = {},
  ) {
    this.flushDelayMs = opts.flushDelayMs ?? DEFAULT_FLUSH_DELAY_MS;
    this.maxBatch = opts.maxBatch ?? 500;
    this.maxBacklog = opts.maxBacklog ?? 10_000;
    this.retryDelaysMs = opts.retryDelaysMs ?? DEFAULT_RETRY_DELAYS_MS;
    this.retry = opts.retry ?? new WriteRetry(log);
    this.onSettled = opts.onSettled;
  }

  /** Shutdown: writes still failing `graceMs` from now are given up (logged with their task ids). */
  closing(graceMs: number): void {
    this.retry.closing(graceMs);
  }

  /** Tasks answered but not written yet. */
  get backlog(): number {
    return this.unwritten.size;
  }

  /**
   * True while the backlog is at its limit (the database is slow or away): Form B refuses new probes with
   * 503 before running them, rather than answering probes whose results it cannot keep. Requests already
   * running still write; memory stays within the limit plus the requests in flight.
   */
  get full(): boolean {
    return this.unwritten.size >= this.maxBacklog;
  }

  /** The task as answered, while its write is still on the way. */
  peek(id: string): TaskRecord | undefined {
    return this.unwritten.get(id);
  }

  /** Queues a finished task; never waits, so an answer is never held back by the database. */
  write(task: TaskRecord): void {
    this.unwritten.set(task.id, task);
    this.queue.push(task);
    if (!this.flushing) {
      this.flushing = true;
      this.background.run(() => this.flushAll());
    }
  }

  private async flushAll(): Promise<void> {
    try {
      while (this.queue.length > 0) {
        if (this.flushDelayMs > 0) await new Promise((r) => setTimeout(r, this.flushDelayMs));
        await this.store(this.queue.splice(0, this.maxBatch));
      }
    } finally {
      this.flushing = false;
    }
  }

  /**
   * Writes a batch; a failed write is retried after a pause (database away), except when PostgreSQL refused
   * the data itself: then each task is tried alone, so one bad task cannot sink the others.
   */
  private async store(batch: TaskRecord[]): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      try {
        await insertFinishedTasks(this.db, batch);
        if (attempt > 0) this.log.info({ tasks: batch.length, attempt }, "probe tasks stored after retry");
        this.settle(batch);
        return;
      } catch (err) {
        // An account deleted while the statement ran (its foreign key refused the task): written again at
        // once, the statement leaves that account's tasks out.
        if (attempt === 0 && isOwnerGone(err)) continue;
        if (isDataError(err) && batch.length > 1) {
          for (const task of batch) await this.store([task]);
          return;
        }
        const delay = isDataError(err) ? undefined : this.retry.delayAfter(err, attempt, this.retryDelaysMs);
        if (delay === undefined) {
          this.log.error(
            { err, task_ids: batch.map((t) => t.id) },
            "probe tasks could not be stored; their callers had the results, but they cannot be read again",
          );
          this.settle(batch);
          return;
        }
        if (WriteRetry.worthLogging(attempt))
          this.log.warn(
            { err, tasks: batch.length, attempt, retry_in_ms: delay },
            "storing probe tasks failed; retrying",
          );
        await new Promise((r) => setTimeout(r, delay));
      }
    }
  }

  private settle(batch: readonly TaskRecord[]): void {
    for (const task of batch) this.unwritten.delete(task.id);
    this.onSettled?.(batch);
  }
}

/** SQLSTATE class 22 (data exception) or 23 (integrity constraint violation): retrying will not help. */
function isDataError(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === "string" && /^2[23]/.test(code);
}

/** The owner's foreign key refused a task (23503 on `probe_tasks_owner_fk`): its account was just deleted. */
function isOwnerGone(err: unknown): boolean {
  // postgres.js names the constraint `constraint_name`, PGlite `constraint`.
  const e = err as { code?: unknown; constraint?: unknown; constraint_name?: unknown } | null;
  return e?.code === "23503" && (e.constraint_name ?? e.constraint) === "probe_tasks_owner_fk";
}
