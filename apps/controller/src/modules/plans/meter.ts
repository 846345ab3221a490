import { type Kysely, sql } from "kysely";
import type { Database } from "../../db/schema.js";
import type { UsageFamily } from "./families.js";

interface Pending {
  userId: string;
  day: string;
  family: UsageFamily;
  units: number;
  calls: number;
}

/** `YYYY-MM-DD` of a UTC instant. */
export function utcDay(t: number): string {
  return new Date(t).toISOString().slice(0, 10);
}

/**
 * Metered use, counted in memory and added to `usage_daily` in one statement every `flushMs`: recording
 * costs no database round trip. `stop()` flushes what is left (the runtime calls it on SIGTERM before the
 * database closes); a crash loses at most the last `flushMs` of counts. A failed flush keeps its counts for
 * the next one, so the database being away loses nothing while the process lives.
 */
export class UsageMeter {
  private pending = new Map<string, Pending>();
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> = Promise.resolve();
  private stopped = false;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly opts: { flushMs: number; onError?: (err: unknown) => void; now?: () => number },
  ) {}

  /** Counts one call of `units` (node-probes for probes, 1 for a lookup) for the account, today (UTC). */
  record(userId: string, family: UsageFamily, units: number): void {
    const day = utcDay((this.opts.now ?? Date.now)());
    const key = `${userId}\t${day}\t${family}`;
    const p = this.pending.get(key);
    if (p) {
      p.units += units;
      p.calls += 1;
    } else this.pending.set(key, { userId, day, family, units, calls: 1 });
    this.schedule();
  }

  /** What is counted here but not yet in the table, for the account (added to what the table says). */
  unflushed(userId: string): Pending[] {
    return [...this.pending.values()].filter((p) => p.userId === userId).map((p) => ({ ...p }));
  }

  flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.running = this.running.then(() => this.write());
    return this.running;
  }

  /** The last flush; afterwards counts are still kept and flushed only by `flush()`. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.flush();
  }

  private schedule(): void {
    if (this.timer || this.stopped) return;
    this.timer = setTimeout(() => void this.flush(), this.opts.flushMs);
    this.timer.unref();
  }

  private async write(): Promise<void> {
    if (this.pending.size === 0) return;
    const batch = [...this.pending.values()];
    this.pending = new Map();
    try {
      await sql`
        insert into usage_daily (user_id, day, family, units, calls, updated_at)
        select u.user_id, u.day, u.family, u.units, u.calls, now() from unnest(
          cast(${batch.map((b) => b.userId)} as text[]),
          cast(cast(${batch.map((b) => b.day)} as text[]) as date[]),
          cast(${batch.map((b) => b.family)} as text[]),
          cast(cast(${batch.map((b) => String(b.units))} as text[]) as bigint[]),
          cast(cast(${batch.map((b) => String(b.calls))} as text[]) as bigint[])
        ) as u(user_id, day, family, units, calls)
        where exists (select 1 from users where users.id = u.user_id)
        on conflict (user_id, day, family) do update set
          units = usage_daily.units + excluded.units,
          calls = usage_daily.calls + excluded.calls,
          updated_at = now()`.execute(this.db);
    } catch (err) {
      // Kept for the next flush: merged back with whatever was counted meanwhile.
      for (const b of batch) {
        const key = `${b.userId}\t${b.day}\t${b.family}`;
        const p = this.pending.get(key);
        if (p) {
          p.units += b.units;
          p.calls += b.calls;
        } else this.pending.set(key, b);
      }
      this.opts.onError?.(err);
      this.schedule();
    }
  }
}
