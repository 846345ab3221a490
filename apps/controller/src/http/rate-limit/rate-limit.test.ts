import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { clientIpOf } from "../context.js";
import { installCore } from "../core.js";
import { handleError } from "../errors-handler.js";
import { HttpMetrics } from "../metrics.js";
import { createRouter } from "../router.js";
import { ipBucket, memoryRateLimitStore, RateLimiter, rateLimit } from "./index.js";

describe("rate limiter", () => {
  it("counts per key in fixed windows and starts again in the next window", async () => {
    let now = 1_000_000;
    const limiter = new RateLimiter(
      memoryRateLimitStore(),
      { name: "t", limit: 2, windowMs: 1000 },
      () => now,
    );
    expect((await limiter.consume("a")).exceeded).toBe(false);
    expect((await limiter.consume("a")).exceeded).toBe(false);
    expect((await limiter.peek("a")).exceeded).toBe(true);
    const third = await limiter.consume("a");
    expect(third).toMatchObject({ exceeded: true, remaining: 0, count: 3, resetAt: 1_001_000 });
    expect((await limiter.consume("b")).exceeded).toBe(false);
    now += 1000;
    expect(await limiter.peek("a")).toMatchObject({ count: 0, exceeded: false });
  });

  it("limits IPv6 clients per /64 and IPv4 clients per address", () => {
    expect(ipBucket("2001:db8:1:2:aaaa::1")).toBe("2001:db8:1:2::/64");
    expect(ipBucket("2001:db8:1:2:ffff:ffff:ffff:ffff")).toBe("2001:db8:1:2::/64");
    expect(ipBucket("2001:db8::1")).toBe("2001:db8:0:0::/64");
    expect(ipBucket("203.0.113.7")).toBe("203.0.113.7");
  });

  it("as middleware: RateLimit-* headers, then 429 rate_limited with Retry-After", async () => {
    const app = createRouter();
    installCore(app, {
      log: pino({ level: "silent" }),
      metrics: new HttpMetrics(false),
      accessLog: false,
      trustedProxies: [],
      bodyLimit: 1024,
    });
    const limiter = new RateLimiter(memoryRateLimitStore(), { name: "mw", limit: 1, windowMs: 60_000 });
    app.use(
      "/limited",
      rateLimit(limiter, (c) => ipBucket(clientIpOf(c))),
    );
    app.get("/limited", (c) => c.json({ ok: true }));
    app.onError(handleError);
    const first = await app.request("/limited");
    expect(first.status).toBe(200);
    expect(first.headers.get("ratelimit-remaining")).toBe("0");
    const second = await app.request("/limited");
    expect(second.status).toBe(429);
    expect(Number(second.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(((await second.json()) as { error: { code: string } }).error.code).toBe("rate_limited");
  });
});
