import type { Kysely } from "kysely";
import type { Logger } from "pino";
import type { Listen, Listening } from "../../db/listen.js";
import type { Database } from "../../db/schema.js";
import { findTask, RESULTS_CHANNEL, type TaskRecord } from "./repo.js";

/**
 * The fallback: how often the watched tasks are looked at in the database (one statement for all of
 * them) in case a NOTIFY was missed (the LISTEN connection was down) or never sent (the sweeper failing
 * a task whose controller died).
 */
export const WATCH_POLL_MS = 1000;

type OnChange = (task: TaskRecord) => void;

interface Watched {
  listeners: Set<OnChange>;
  /** `status:results` as last read, to tell whether a poll found something new. */
  seen: string | undefined;
  refreshing: boolean;
  again: boolean;
}

const keyOf = (status: string, results: number) => `${status}:${results}`;

/**
 * Follows tasks that run on another controller, through the database they share: the controller running
 * a Form A task NOTIFYs `vantage_probe_results` with the task's id each time it stores a result and when it
 * finishes the task; on hearing a watched id this controller reads the task again and hands it to the
 * task's watchers. The same happens when a poll every `pollMs` finds a watched task changed. One LISTEN
 * (opened with the first watch) and one polling statement serve every watched task of the process.
 */
export class TaskWatch {
  private readonly watched = new Map<string, Watched>();
  private listening: Promise<Listening | undefined> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private polling = false;
  private stopped = false;
  private readonly pollMs: number;

  constructor(private readonly opts: { db: Kysely<Database>; listen: Listen; log: Logger; pollMs?: number }) {
    this.pollMs = opts.pollMs ?? WATCH_POLL_MS;
  }

  /** Calls `onChange` with the task each time it may have changed, until the returned function is called. */
  async watch(id: string, onChange: OnChange): Promise<() => void> {
    let w = this.watched.get(id);
    if (!w) {
      w = { listeners: new Set(), seen: undefined, refreshing: false, again: false };
      this.watched.set(id, w);
    }
    w.listeners.add(onChange);
    this.stopped = false;
    this.timer ??= setInterval(() => void this.poll(), this.pollMs);
    await this.startListening();
    const entry = w;
    return () => {
      entry.listeners.delete(onChange);
      if (entry.listeners.size === 0 && this.watched.get(id) === entry) this.watched.delete(id);
      if (this.watched.size === 0) {
        clearInterval(this.timer);
        this.timer = undefined;
      }
    };
  }

  get size(): number {
    return this.watched.size;
  }

  /** Ends the LISTEN and the polling (shutdown); watchers hear nothing more. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    this.timer = undefined;
    const l = await this.listening;
    this.listening = undefined;
    await l?.close();
  }

  private startListening(): Promise<Listening | undefined> {
    this.listening ??= this.opts
      .listen(
        RESULTS_CHANNEL,
        (id) => {
          if (this.watched.has(id)) void this.refresh(id);
        },
        // After a reconnection: whatever was sent while the connection was down is read now.
        () => {
          for (const id of this.watched.keys()) void this.refresh(id);
        },
      )
      .catch((err: unknown) => {
        this.opts.log.warn({ err }, "cannot LISTEN for probe results; live streams fall back to polling");
        this.listening = undefined;
        return undefined;
      });
    return this.listening;
  }

  /** Reads the task again and hands it to its watchers; calls while one runs make it run once more. */
  private async refresh(id: string): Promise<void> {
    const w = this.watched.get(id);
    if (!w) return;
    if (w.refreshing) {
      w.again = true;
      return;
    }
    w.refreshing = true;
    try {
      do {
        w.again = false;
        const task = await findTask(this.opts.db, id);
        if (!task || this.stopped) return;
        w.seen = keyOf(task.status, task.results.length);
        for (const l of [...w.listeners]) l(task);
      } while (w.again);
    } catch (err) {
      this.opts.log.warn({ err, task_id: id }, "reading a followed probe task failed; the next poll retries");
      w.seen = undefined;
    } finally {
      w.refreshing = false;
    }
  }

  private async poll(): Promise<void> {
    if (this.polling || this.watched.size === 0) return;
    this.polling = true;
    try {
      const ids = [...this.watched.keys()];
      for (let i = 0; i < ids.length; i += 1000) {
        const rows = await this.opts.db
          .selectFrom("probe_tasks as t")
          .select((eb) => [
            "t.id",
            "t.status",
            eb
              .selectFrom("probe_results as r")
              .select(eb.fn.countAll<number>().as("n"))
              .whereRef("r.task_id", "=", "t.id")
              .as("results"),
          ])
          .where("t.id", "in", ids.slice(i, i + 1000))
          .execute();
        for (const row of rows) {
          const w = this.watched.get(row.id);
          // bigint counts arrive as strings from PostgreSQL, as numbers from PGlite.
          if (w && w.seen !== keyOf(row.status, Number(row.results))) void this.refresh(row.id);
        }
      }
    } catch (err) {
      this.opts.log.warn({ err }, "polling followed probe tasks failed; trying again");
    } finally {
      this.polling = false;
    }
  }
}
