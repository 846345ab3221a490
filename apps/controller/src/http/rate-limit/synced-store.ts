import { type Kysely, sql } from "kysely";
import type { Database } from "../../db/schema.js";
import type { RateLimitStore } from "./limiter.js";

/**
 * Counters kept in this process and merged into the shared `rate_limits` table in the background: a hit
 * costs no database round trip, and every controller learns the others' counts at the next sync (one
 * statement for all buckets with news, at most `syncMs` after a hit). Between syncs each controller may
 * admit up to `syncMs` worth of its own traffic beyond the shared limit. For hot paths (probe quotas);
 * login throttling keeps the exact `dbRateLimitStore`.
 */
export interface SyncedRateLimitStore extends RateLimitStore {
  /** `add` without a promise: the count is local, so hot paths need not wait a microtask. */
  addNow(bucket: string, windowStart: number, windowMs: number, cost: number): number;
  /** `get` without a promise. */
  getNow(bucket: string, windowStart: number): number;
  /** Merges local counts into the table now. */
  sync(): Promise<void>;
  /** A last sync; afterwards counts stay local (shutdown: the database is about to close). */
  stop(): Promise<void>;
}

export function syncedRateLimitStore(
  db: Kysely<Database>,
  opts: { syncMs?: number; maxBuckets?: number; onError?: (err: unknown) => void } = {},
): SyncedRateLimitStore {
  const syncMs = opts.syncMs ?? 1000;
  const maxBuckets = opts.maxBuckets ?? 100_000;
  /** `shared`: the table's count at the last sync; `pending`: local hits since, not yet in the table. */
  const buckets = new Map<string, { start: number; windowMs: number; shared: number; pending: number }>();
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let stopped = false;

  const syncNow = async (): Promise<void> => {
    timer = undefined;
    const due = [...buckets.entries()].filter(([, b]) => b.pending > 0);
    if (due.length === 0) return;
    const sent = due.map(([bucket, b]) => ({
      bucket,
      start: b.start,
      windowMs: b.windowMs,
      hits: b.pending,
    }));
    for (const [, b] of due) b.pending = 0;
    try {
      const { rows } = await sql<{ bucket: string; hits: number | string; window_start: Date | string }>`
        insert into rate_limits (bucket, window_start, hits, expires_at)
        select * from unnest(
          cast(${sent.map((s) => s.bucket)} as text[]),
          cast(cast(${sent.map((s) => new Date(s.start).toISOString())} as text[]) as timestamptz[]),
          cast(cast(${sent.map((s) => String(s.hits))} as text[]) as integer[]),
          cast(cast(${sent.map((s) => new Date(s.start + s.windowMs).toISOString())} as text[]) as timestamptz[])
        )
        on conflict (bucket) do update set
          hits = case when rate_limits.window_start = excluded.window_start
                      then rate_limits.hits + excluded.hits else excluded.hits end,
          window_start = excluded.window_start,
          expires_at = excluded.expires_at
        where rate_limits.window_start <= excluded.window_start
        returning bucket, hits, window_start`.execute(db);
      for (const r of rows) {
        const b = buckets.get(r.bucket);
        if (b && new Date(r.window_start).getTime() === b.start) b.shared = Number(r.hits);
      }
    } catch (err) {
      // Not lost: the hits count again at the next sync.
      for (const s of sent) {
        const b = buckets.get(s.bucket);
        if (b && b.start === s.start) b.pending += s.hits;
      }
      opts.onError?.(err);
      schedule();
    }
  };
  const schedule = () => {
    if (timer || stopped) return;
    timer = setTimeout(() => {
      running = (running ?? Promise.resolve()).then(syncNow);
    }, syncMs);
    timer.unref();
  };

  const addNow = (bucket: string, windowStart: number, windowMs: number, cost: number): number => {
    let b = buckets.get(bucket);
    if (!b || b.start !== windowStart) {
      if (!b && buckets.size >= maxBuckets) {
        const oldest = buckets.keys().next().value;
        if (oldest !== undefined) buckets.delete(oldest);
      }
      b = { start: windowStart, windowMs, shared: 0, pending: 0 };
      buckets.set(bucket, b);
    }
    b.pending += cost;
    schedule();
    return b.shared + b.pending;
  };
  const getNow = (bucket: string, windowStart: number): number => {
    const b = buckets.get(bucket);
    return b && b.start === windowStart ? b.shared + b.pending : 0;
  };

  return {
    addNow,
    getNow,
    async add(bucket, windowStart, windowMs, cost) {
      return addNow(bucket, windowStart, windowMs, cost);
    },
    async get(bucket, windowStart) {
      return getNow(bucket, windowStart);
    },
    async clear(bucket) {
      buckets.delete(bucket);
      await db.deleteFrom("rate_limits").where("bucket", "=", bucket).execute();
    },
    async sync() {
      clearTimeout(timer);
      timer = undefined;
      running = (running ?? Promise.resolve()).then(syncNow);
      await running;
    },
    async stop() {
      if (stopped) return;
      await this.sync();
      stopped = true;
      clearTimeout(timer);
      timer = undefined;
    },
  };
}
