/**
 * Answers kept for a while per lookup kind, bounded in entries (least recently used out first), and one
 * upstream call at a time per key: callers asking the same thing while it runs share its answer, so a burst
 * of identical lookups costs the remote one query. Failures are never kept.
 */
export class LookupCache<V> {
  private readonly entries = new Map<string, { value: V; expiresAt: number }>();
  private readonly inflight = new Map<string, Promise<V>>();

  constructor(
    private readonly maxEntries: number,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * The kept answer for `key` (`cached: true`), else the answer of `load` (`cached: false`), kept for
   * `ttlMs(value)` ms when that is above 0.
   */
  async get(
    key: string,
    load: () => Promise<V>,
    ttlMs: (value: V) => number,
  ): Promise<{ value: V; cached: boolean }> {
    const hit = this.entries.get(key);
    if (hit && hit.expiresAt > this.now()) {
      // Re-inserted: a Map iterates in insertion order, so the first key is always the least recently used.
      this.entries.delete(key);
      this.entries.set(key, hit);
      return { value: hit.value, cached: true };
    }
    if (hit) this.entries.delete(key);
    const running = this.inflight.get(key);
    if (running) return { value: await running, cached: false };
    const started = load();
    this.inflight.set(key, started);
    try {
      const value = await started;
      const ttl = ttlMs(value);
      if (ttl > 0 && this.maxEntries > 0) this.keep(key, value, ttl);
      return { value, cached: false };
    } finally {
      this.inflight.delete(key);
    }
  }

  /**
   * The kept, unexpired answer for `key`, read synchronously without counting as a use (see `touch`); a
   * caller answering from it without `get` then calls `touch`, or `put` with what it loaded itself.
   */
  peek(key: string): V | undefined {
    const hit = this.entries.get(key);
    return hit && hit.expiresAt > this.now() ? hit.value : undefined;
  }

  /** Whether a `get` is loading `key` now (its callers will share that answer). */
  loading(key: string): boolean {
    return this.inflight.has(key);
  }

  /** Marks the kept answer of `key` as just used, as a `get` answering from it does. */
  touch(key: string): void {
    const hit = this.entries.get(key);
    if (hit === undefined) return;
    this.entries.delete(key);
    this.entries.set(key, hit);
  }

  /** Keeps `value` for `key` for `ttl` ms (when above 0), as a `get` keeps what its `load` answered. */
  put(key: string, value: V, ttl: number): void {
    this.entries.delete(key);
    if (ttl > 0 && this.maxEntries > 0) this.keep(key, value, ttl);
  }

  get size(): number {
    return this.entries.size;
  }

  private keep(key: string, value: V, ttl: number): void {
    this.entries.set(key, { value, expiresAt: this.now() + ttl });
    while (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next();
      if (oldest.done) break;
      this.entries.delete(oldest.value);
    }
  }
}
