import type { Logger } from "pino";
import { isDatabaseUnavailable } from "../../db/availability.js";

/** Longest pause between two attempts while the database is away (the gate lets one query through per 0.5 s). */
export const MAX_RETRY_DELAY_MS = 1000;

/**
 * Answered results are kept until they are stored: while the database is away a write is tried again,
 * every second at most, for as long as the outage lasts. Only shutdown ends that, `graceMs` after
 * `closing()` (the process is going away, so what is still unwritten is lost, and logged as such).
 * Memory stays bounded by what callers let in: Form B refuses new probes while its backlog is full, Form A
 * cannot create a task without the database.
 */
export class WriteRetry {
  private giveUpAt = Number.POSITIVE_INFINITY;

  constructor(private readonly log: Logger) {}

  /** Shutdown: attempts still failing `graceMs` from now are given up. */
  closing(graceMs: number): void {
    this.giveUpAt = Math.min(this.giveUpAt, Date.now() + graceMs);
  }

  get givingUp(): boolean {
    return Date.now() >= this.giveUpAt;
  }

  /**
   * The pause before attempt `attempt + 1` after `err`, or undefined to give up: only errors that say the
   * database is away are retried indefinitely; `schedule` covers the others.
   */
  delayAfter(err: unknown, attempt: number, schedule: readonly number[]): number | undefined {
    if (this.givingUp) return undefined;
    const planned = schedule[attempt];
    if (!isDatabaseUnavailable(err)) return planned;
    const delay = Math.min(planned ?? MAX_RETRY_DELAY_MS, MAX_RETRY_DELAY_MS);
    return Math.max(0, Math.min(delay, this.giveUpAt - Date.now()));
  }

  /** Warn on the first failure and then ever more rarely (attempts 1, 2, 4, 8 …): an outage is one story. */
  static worthLogging(attempt: number): boolean {
    return (attempt & (attempt - 1)) === 0;
  }

  /**
   * Runs `write` until it succeeds. Resolves false when it gave up (shutdown during an outage); other
   * errors are thrown at once.
   */
  async run(what: string, context: Record<string, unknown>, write: () => Promise<void>): Promise<boolean> {
    for (let attempt = 0; ; attempt++) {
      try {
        await write();
        if (attempt > 0)
          this.log.info({ ...context, attempt }, `${what}: stored after the database returned`);
        return true;
      } catch (err) {
        const delay = this.delayAfter(err, attempt, []);
        if (delay === undefined) {
          if (!isDatabaseUnavailable(err)) throw err;
          this.log.error(
            { err, ...context },
            `${what}: not stored, the controller stopped while the database was away`,
          );
          return false;
        }
        if (WriteRetry.worthLogging(attempt))
          this.log.warn({ err, ...context, attempt }, `${what}: database away; retrying until it is back`);
        await new Promise((r) => setTimeout(r, delay));
      }
    }
  }
}
