import type { Kysely } from "kysely";
import type { Logger } from "pino";
import type { Database } from "../../db/schema.js";
import { failAbandonedTasks } from "./repo.js";

/**
 * A task's nodes answer or time out within two minutes (agents cap every job at 110 s); a task still
 * `queued` or `running` ten minutes after it was created lost its controller mid-way.
 */
export const ABANDONED_AFTER_MS = 10 * 60_000;

export interface TaskSweeper {
  /** Marks abandoned tasks `failed`; resolves with how many. */
  runOnce(now?: Date): Promise<number>;
  stop(): Promise<void>;
}

/** Runs at start and then every `intervalMs` (scheduler role); several controllers may run it at once. */
export function startTaskSweeper(opts: {
  db: Kysely<Database>;
  log: Logger;
  intervalMs?: number;
  poll?: boolean;
}): TaskSweeper {
  let running: Promise<number> | undefined;
  const runOnce = async (now = new Date()) => {
    const n = await failAbandonedTasks(opts.db, new Date(now.getTime() - ABANDONED_AFTER_MS));
    if (n > 0)
      opts.log.warn({ tasks: n }, "probe tasks left unfinished by a stopped controller marked failed");
    return n;
  };
  const tick = () => {
    running = runOnce().catch((err: unknown) => {
      opts.log.error({ err }, "sweeping abandoned probe tasks failed");
      return 0;
    });
  };
  let timer: NodeJS.Timeout | undefined;
  if (opts.poll ?? true) {
    tick();
    timer = setInterval(tick, opts.intervalMs ?? 60_000);
    timer.unref();
  }
  return {
    runOnce,
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
