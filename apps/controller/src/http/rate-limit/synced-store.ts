import { type Kysely, sql } from "kysely";
import type { Database } from "../../db/schema.js";
import type { RateLimitStore } from "./limiter.js";

/**
 * Counters kept in this process and merged into the shared `rate_limits` table in the background: a hit
 * costs no database round trip, and every controller learns the others' counts at the next sync (at most
 * `syncMs` after a hit: one statement adds the local hits, one reads the counts of buckets used here in
 * the last `watchMs` without local news, so an idle controller still learns what the others counted).
 * A bucket first used in a window is read from the table before counting (`ensure`: one round trip per
 * bucket, window and process). Between syncs each controller may admit up to `syncMs` worth of its own
 * traffic beyond the shared limit. For hot paths (plan limits); login throttling keeps the exact
 * `dbRateLimitStore`.
 */
export interface SyncedRateLimitStore extends RateLimitStore {
  /** `add` without a promise: the count is local, so hot paths need not wait a microtask. */
  addNow(bucket: string, windowStart: number, windowMs: number, cost: number): number;
  /** `get` without a promise. */
  getNow(bucket: string, windowStart: number): number;
  /**
   * Undefined when this process already counts the bucket in this window; else a promise that reads its
   * shared count from the table first (once per bucket and window; a database away counts from 0).
   */
  ensure(bucket: string, windowStart: number, windowMs: number): Promise<void> | undefined;
  /** Merges local counts into the table now. */
  sync(): Promise<void>;
  /** A last sync; afterwards counts stay local (shutdown: the database is about to close). */
  stop(): Promise<void>;
}

export function syncedRateLimitStore(
  db: Kysely<Database>,
  opts: {
    syncMs?: number;
    /** How long after its last use a bucket's shared count is still refreshed at each sync. */
    watchMs?: number;
    maxBuckets?: number;
    onError?: (err: unknown) => void;
    now?: () => number;
  } = {},
): SyncedRateLimitStore {
  const syncMs = opts.syncMs ?? 1000;
  const watchMs = opts.watchMs ?? 60_000;
  const now = opts.now ?? Date.now;
  const maxBuckets = opts.maxBuckets ?? 100_000;
  /**
   * `shared`: the table's count at the last sync; `sending`: local hits in a sync's statement not yet
   * answered (still counted: the count must not drop while they travel); `pending`: local hits since, not
   * yet sent; `usedAt`: when it was last read or counted here (its shared count is refreshed while recent).
   */
  interface Bucket {
    start: number;
    windowMs: number;
    shared: number;
    sending: number;
    pending: number;
    usedAt: number;
  }
  const count = (b: Bucket) => b.shared + b.sending + b.pending;
  const buckets = new Map<string, Bucket>();
  const priming = new Map<string, Promise<void>>();
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let stopped = false;

  const syncNow = async (): Promise<void> => {
    timer = undefined;
    const due: [string, Bucket][] = [];
    const watched: [string, Bucket][] = [];
    const t = now();
    for (const entry of buckets) {
      const b = entry[1];
      if (b.pending > 0) due.push(entry);
      else if (t - b.usedAt < watchMs && t < b.start + b.windowMs) watched.push(entry);
    }
    // Keep watching while recent buckets remain: the others may still be counting them.
    if (watched.length > 0) {
      await refresh(watched);
      schedule();
    }
    if (due.length === 0) return;
    const sent = due.map(([bucket, b]) => ({
      bucket,
      b,
      start: b.start,
      windowMs: b.windowMs,
      hits: b.pending,
    }));
    for (const [, b] of due) {
      b.sending += b.pending;
      b.pending = 0;
    }
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
      // The table's count now holds what was sent.
      for (const s of sent) s.b.sending -= s.hits;
      for (const r of rows) {
        const b = buckets.get(r.bucket);
        if (b && new Date(r.window_start).getTime() === b.start) b.shared = Number(r.hits);
      }
      schedule();
    } catch (err) {
      // Not lost: the hits count again at the next sync.
      for (const s of sent) {
        s.b.sending -= s.hits;
        if (buckets.get(s.bucket) === s.b) s.b.pending += s.hits;
      }
      opts.onError?.(err);
      schedule();
    }
  };
  /** Reads the table's counts of buckets used here without local news (what the others counted). */
  const refresh = async (watched: [string, Bucket][]): Promise<void> => {
    try {
      const { rows } = await sql<{ bucket: string; hits: number | string; window_start: Date | string }>`
        select bucket, hits, window_start from rate_limits
        where bucket = any(cast(${watched.map(([bucket]) => bucket)} as text[]))`.execute(db);
      for (const r of rows) {
        const b = buckets.get(r.bucket);
        if (b && b.pending === 0 && b.sending === 0 && new Date(r.window_start).getTime() === b.start) {
          b.shared = Math.max(b.shared, Number(r.hits));
        }
      }
    } catch (err) {
      opts.onError?.(err);
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
      b = { start: windowStart, windowMs, shared: 0, sending: 0, pending: 0, usedAt: now() };
      buckets.set(bucket, b);
    }
    b.pending += cost;
    b.usedAt = now();
    schedule();
    return count(b);
  };
  const getNow = (bucket: string, windowStart: number): number => {
    const b = buckets.get(bucket);
    if (!b || b.start !== windowStart) return 0;
    b.usedAt = now();
    schedule();
    return count(b);
  };
  const ensure = (bucket: string, windowStart: number, windowMs: number): Promise<void> | undefined => {
    const b = buckets.get(bucket);
    if (b && b.start === windowStart) return undefined;
    const key = `${bucket}@${windowStart}`;
    let p = priming.get(key);
    if (!p) {
      p = (async () => {
        let shared = 0;
        try {
          const { rows } = await sql<{ hits: number | string; window_start: Date | string }>`
            select hits, window_start from rate_limits where bucket = ${bucket}`.execute(db);
          const row = rows[0];
          if (row && new Date(row.window_start).getTime() === windowStart) shared = Number(row.hits);
        } catch (err) {
          opts.onError?.(err);
        }
        const known = buckets.get(bucket);
        if (known && known.start === windowStart) known.shared = Math.max(known.shared, shared);
        else {
          if (!known && buckets.size >= maxBuckets) {
            const oldest = buckets.keys().next().value;
            if (oldest !== undefined) buckets.delete(oldest);
          }
          buckets.set(bucket, {
            start: windowStart,
            windowMs,
            shared,
            sending: 0,
            pending: 0,
            usedAt: now(),
          });
          schedule();
        }
      })().finally(() => priming.delete(key));
      priming.set(key, p);
    }
    return p;
  };

  return {
    addNow,
    getNow,
    ensure,
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
