import { isIP } from "node:net";
import type { MiddlewareHandler } from "hono";
import { type Kysely, sql } from "kysely";
import type { Database } from "../db/schema.js";
import type { AppEnv } from "./context.js";
import { ApiError } from "./errors.js";

/** At most `limit` hits per fixed window of `windowMs`. */
export interface RateLimitRule {
  /** Names the counter family in storage and logs, e.g. `login:email`. */
  name: string;
  limit: number;
  windowMs: number;
}

export interface RateLimitStatus {
  limit: number;
  /** Hits counted in the current window (after this one, for `consume`). */
  count: number;
  remaining: number;
  /** Epoch ms at which the current window ends. */
  resetAt: number;
  exceeded: boolean;
}

/** Where counters live: one table shared by every controller, or this process's memory. */
export interface RateLimitStore {
  /** Adds `cost` to the bucket's counter for the window starting at `windowStart`; returns the new count. */
  add(bucket: string, windowStart: number, windowMs: number, cost: number): Promise<number>;
  get(bucket: string, windowStart: number): Promise<number>;
  clear(bucket: string): Promise<void>;
}

/**
 * A fixed-window counter per key. With `dbRateLimitStore` the count is shared by every controller
 * instance on the same database (one upsert per hit); with `memoryRateLimitStore` it is per process.
 */
export class RateLimiter {
  constructor(
    private readonly store: RateLimitStore,
    readonly rule: RateLimitRule,
    private readonly now: () => number = Date.now,
  ) {}

  /** Counts a hit for `key` and says whether the key is now over the limit. */
  async consume(key: string, cost = 1): Promise<RateLimitStatus> {
    const start = this.windowStart();
    const count = await this.store.add(this.bucket(key), start, this.rule.windowMs, cost);
    return this.status(count, start);
  }

  /** The key's state without counting: `exceeded` once the limit has been reached. */
  async peek(key: string): Promise<RateLimitStatus> {
    const start = this.windowStart();
    const count = await this.store.get(this.bucket(key), start);
    const s = this.status(count, start);
    return { ...s, exceeded: count >= this.rule.limit };
  }

  async reset(key: string): Promise<void> {
    await this.store.clear(this.bucket(key));
  }

  private bucket(key: string): string {
    return `${this.rule.name}:${key}`;
  }

  private windowStart(): number {
    const w = this.rule.windowMs;
    return Math.floor(this.now() / w) * w;
  }

  private status(count: number, start: number): RateLimitStatus {
    return {
      limit: this.rule.limit,
      count,
      remaining: Math.max(0, this.rule.limit - count),
      resetAt: start + this.rule.windowMs,
      exceeded: count > this.rule.limit,
    };
  }
}

/** `RateLimit-*` headers (IETF draft) for a status. */
export function rateLimitHeaders(s: RateLimitStatus, now = Date.now()): Record<string, string> {
  return {
    "RateLimit-Limit": String(s.limit),
    "RateLimit-Remaining": String(s.remaining),
    "RateLimit-Reset": String(Math.max(0, Math.ceil((s.resetAt - now) / 1000))),
  };
}

/** 429 `rate_limited` with `Retry-After` (whole seconds) for the longest-blocked of the given statuses. */
export function rateLimitedError(statuses: RateLimitStatus[], message = "too many requests"): ApiError {
  const now = Date.now();
  const worst = statuses.reduce((a, b) => (b.resetAt > a.resetAt ? b : a));
  const retryAfter = Math.max(1, Math.ceil((worst.resetAt - now) / 1000));
  return new ApiError(
    "rate_limited",
    `${message}; retry after ${retryAfter} s`,
    { retry_after_s: retryAfter },
    { "Retry-After": String(retryAfter), ...rateLimitHeaders(worst, now) },
  );
}

/**
 * Middleware: one hit per request on the key `keyOf(c)` returns (none → not limited). Sets `RateLimit-*`
 * headers and answers 429 over the limit. Typical keys: `c.get("clientIp")` through `ipBucket`, or the
 * principal's credential id.
 */
export function rateLimit(
  limiter: RateLimiter,
  keyOf: (c: Parameters<MiddlewareHandler<AppEnv>>[0]) => string | undefined,
): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const key = keyOf(c);
    if (key === undefined) return next();
    const s = await limiter.consume(key);
    if (s.exceeded) throw rateLimitedError([s]);
    await next();
    for (const [k, v] of Object.entries(rateLimitHeaders(s))) c.res.headers.set(k, v);
  };
}

/** The unit an IP is limited as: the address itself for IPv4, its /64 for IPv6 (one host's usual share). */
export function ipBucket(ip: string): string {
  if (isIP(ip) !== 6) return ip;
  const [head = "", tail = ""] = ip.toLowerCase().split("::");
  const left = head ? head.split(":") : [];
  const right = tail ? tail.split(":") : [];
  const groups = ip.includes("::")
    ? [...left, ...Array<string>(Math.max(0, 8 - left.length - right.length)).fill("0"), ...right]
    : left;
  return `${groups
    .slice(0, 4)
    .map((g) => g.replace(/^0+(?=.)/, ""))
    .join(":")}::/64`;
}

/** Counters in the `rate_limits` table: shared by every controller on the database. */
export function dbRateLimitStore(db: Kysely<Database>): RateLimitStore {
  let sinceSweep = 0;
  return {
    async add(bucket, windowStart, windowMs, cost) {
      const start = new Date(windowStart);
      const expires = new Date(windowStart + windowMs);
      const { rows } = await sql<{ hits: number | string }>`
        insert into rate_limits (bucket, window_start, hits, expires_at)
        values (${bucket}, ${start}, ${cost}, ${expires})
        on conflict (bucket) do update set
          hits = case when rate_limits.window_start = excluded.window_start
                      then rate_limits.hits + excluded.hits else excluded.hits end,
          window_start = excluded.window_start,
          expires_at = excluded.expires_at
        returning hits`.execute(db);
      if (++sinceSweep >= 500) {
        sinceSweep = 0;
        await db.deleteFrom("rate_limits").where("expires_at", "<", new Date()).execute();
      }
      return Number(rows[0]?.hits ?? cost);
    },
    async get(bucket, windowStart) {
      const row = await db
        .selectFrom("rate_limits")
        .select(["hits", "window_start"])
        .where("bucket", "=", bucket)
        .executeTakeFirst();
      if (!row || new Date(row.window_start).getTime() !== windowStart) return 0;
      return Number(row.hits);
    },
    async clear(bucket) {
      await db.deleteFrom("rate_limits").where("bucket", "=", bucket).execute();
    },
  };
}

/** Counters in this process only (cheap; each controller instance then limits on its own). */
export function memoryRateLimitStore(maxBuckets = 100_000): RateLimitStore {
  const buckets = new Map<string, { start: number; hits: number }>();
  return {
    async add(bucket, windowStart, _windowMs, cost) {
      const b = buckets.get(bucket);
      if (b && b.start === windowStart) {
        b.hits += cost;
        return b.hits;
      }
      if (buckets.size >= maxBuckets) {
        const oldest = buckets.keys().next().value;
        if (oldest !== undefined) buckets.delete(oldest);
      }
      buckets.delete(bucket);
      buckets.set(bucket, { start: windowStart, hits: cost });
      return cost;
    },
    async get(bucket, windowStart) {
      const b = buckets.get(bucket);
      return b && b.start === windowStart ? b.hits : 0;
    },
    async clear(bucket) {
      buckets.delete(bucket);
    },
  };
}

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
