import { ipBucket } from "./ip-bucket.js";
import { RateLimiter } from "./limiter.js";
import { memoryRateLimitStore } from "./memory-store.js";
import { rateLimitedError } from "./responses.js";

/** The answers that count as refusals: what the body guard and the validators send back. */
export const isRefusal = (status: number) => status === 400 || status === 413 || status === 415;

/**
 * Refused requests per client IP (IPv6 per /64) and minute, in this process: a client whose bodies keep
 * being refused (malformed, too large, too wide, invalid) gets 429 `rate_limited` for its next bodies,
 * before they are read, parsed or validated, until the minute ends. A refusal costs the controller the
 * work of reading and judging the body; past the limit a request costs a counter lookup. Counted per
 * process, as the CPU it protects is.
 */
export class RefusalLimit {
  private readonly limiter: RateLimiter;

  constructor(limit: number, now?: () => number) {
    this.limiter = new RateLimiter(
      memoryRateLimitStore(),
      { name: "refused:ip", limit, windowMs: 60_000 },
      now,
    );
  }

  /** Throws 429 when `ip` has had `limit` refusals this minute. */
  async check(ip: string): Promise<void> {
    const s = await this.limiter.peek(ipBucket(ip));
    if (s.exceeded)
      throw rateLimitedError(
        [s],
        `${s.limit} requests from this address were refused (400, 413, 415) this minute; ` +
          "request bodies are not read until the minute ends",
      );
  }

  /** Counts one refusal (`isRefusal`) of `ip`. */
  record(ip: string): void {
    void this.limiter.consume(ipBucket(ip));
  }
}
