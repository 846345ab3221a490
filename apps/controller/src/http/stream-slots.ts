import type { Context } from "hono";
import { type AppEnv, clientIpOf } from "./context.js";
import { ApiError } from "./errors.js";
import { ipBucket } from "./rate-limit/ip-bucket.js";
import { rateLimitHeaders } from "./rate-limit/responses.js";

/** When a refused stream is worth trying again: streams end by themselves, most within a probe's timeout. */
const RETRY_AFTER_S = 5;

/**
 * Long-lived responses (live result streams) open at once, per client IP (IPv6 per /64) and per account,
 * in this process: each holds a connection, a follower and its timers for as long as the client wants, so
 * one client could otherwise hold hundreds. `take` before any work; the release it returns gives the slot
 * back (once, however often it is called) when the stream ends or fails to start.
 */
export class StreamSlots {
  private readonly byIp = new Map<string, number>();
  private readonly byAccount = new Map<string, number>();

  constructor(private readonly caps: { perIp: number; perAccount: number }) {}

  /** A slot for the request's caller, or 429 `rate_limited` when its address or account holds its cap. */
  take(c: Context<AppEnv>): () => void {
    const ip = ipBucket(clientIpOf(c));
    const account = c.get("principal")?.userId;
    if ((this.byIp.get(ip) ?? 0) >= this.caps.perIp) throw this.refusal("this address", this.caps.perIp);
    if (account !== undefined && (this.byAccount.get(account) ?? 0) >= this.caps.perAccount)
      throw this.refusal("this account", this.caps.perAccount);
    add(this.byIp, ip, 1);
    if (account !== undefined) add(this.byAccount, account, 1);
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      add(this.byIp, ip, -1);
      if (account !== undefined) add(this.byAccount, account, -1);
    };
  }

  /** Streams open now (tests, metrics). */
  get open(): number {
    let n = 0;
    for (const v of this.byIp.values()) n += v;
    return n;
  }

  private refusal(whose: string, cap: number): ApiError {
    const status = { limit: cap, count: cap, remaining: 0, resetAt: Date.now() + RETRY_AFTER_S * 1000 };
    return new ApiError(
      "rate_limited",
      `${whose} already has ${cap} live streams open (the most at once); close one and retry`,
      { limit: cap, per: whose === "this address" ? "ip" : "account", retry_after_s: RETRY_AFTER_S },
      {
        "Retry-After": String(RETRY_AFTER_S),
        ...rateLimitHeaders({ ...status, exceeded: true }),
      },
    );
  }
}

function add(counts: Map<string, number>, key: string, by: number): void {
  const n = (counts.get(key) ?? 0) + by;
  if (n <= 0) counts.delete(key);
  else counts.set(key, n);
}
