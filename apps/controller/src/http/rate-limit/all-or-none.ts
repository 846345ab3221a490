import type { RateLimiter, RateLimitStatus } from "./limiter.js";
import { rateLimitedError } from "./responses.js";

/**
 * The per-address counters' key: lower-cased, with a `+tag` dropped from the local part, since
 * `ada+1@x.io` and `Ada+2@x.io` reach one mailbox.
 */
export function mailboxBucket(email: string): string {
  const at = email.lastIndexOf("@");
  return `${email.slice(0, at).replace(/\+.*$/, "")}@${email.slice(at + 1)}`.toLowerCase();
}

/** Takes back a hit counted by `consume`, unless its window has ended meanwhile (it would land in the next). */
export async function giveBack(limiter: RateLimiter, key: string, counted: RateLimitStatus): Promise<void> {
  if (Date.now() < counted.resetAt) await limiter.consume(key, -1);
}

/**
 * Counts one hit on each `[limiter, key]` before any work is done (so a burst of concurrent requests cannot
 * all pass a check); when any is over its limit, every hit is given back (a refused request costs nothing)
 * and a 429 carrying `message` is thrown. Used where one request spends something on someone else's behalf
 * (a mail to an address, a registration), counted per client and per address.
 */
export async function consumeAll(
  counters: ReadonlyArray<readonly [RateLimiter, string]>,
  message: string,
): Promise<void> {
  const statuses = await Promise.all(counters.map(([limiter, key]) => limiter.consume(key)));
  const blocked = statuses.filter((s) => s.exceeded);
  if (blocked.length === 0) return;
  await Promise.all(counters.map(([limiter, key], i) => giveBack(limiter, key, statuses[i]!)));
  throw rateLimitedError(blocked, message);
}
