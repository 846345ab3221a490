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
