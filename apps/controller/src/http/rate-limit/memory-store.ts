import type { RateLimitStore } from "./limiter.js";

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
