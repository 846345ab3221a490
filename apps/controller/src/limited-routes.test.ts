import { describe, expect, it } from "vitest";
import { issueKey, keyHeaders, newUser } from "./testing/accounts.js";
import { freshMinute } from "./testing/fresh-window.js";
import { exhaust, limitedRoutesOf, problemsOf429, problemsOfEntry } from "./testing/limit-route-tests.js";
import { planLimitsEnv } from "./testing/plan-limits.js";
import { forms } from "./testing/test-app.js";
import { useTestDb } from "./testing/use-test-db.js";

/**
 * Every route the OpenAPI document marks limited (`x-vantage-limit`) answers 429 with `Retry-After` and
 * `RateLimit-Limit/-Remaining/-Reset` once its family is spent: per client IP without credentials, per key
 * (`rate_limited`) and per account (`quota_exceeded`) with them. A new limited route is covered by its
 * OpenAPI entry alone.
 */
describe.each(forms)("limited routes over the OpenAPI document, Form %s", (form) => {
  const db = useTestDb("pglite");
  const small = { node_probes_per_hour: 4, lookups_per_minute: 3, lookups_per_day: 5 };
  const env = {
    VANTAGE_PLAN_LIMITS: planLimitsEnv({
      anonymous: { ...small, reputation_per_minute: 3, reputation_per_day: 5 },
      free: { ...small, reputation_per_minute: 3, reputation_per_day: 5 },
    }),
  };

  it("documents 429 and its headers, and answers it to an anonymous caller over its limit", async () => {
    const t = db.app(form, env);
    await freshMinute(10_000);
    const routes = limitedRoutesOf(t);
    expect(routes.map((r) => `${r.method} ${r.path}`)).toEqual(
      expect.arrayContaining([
        "POST /v1/probe/tcp",
        "POST /v1/probe/http",
        "GET /v1/info/ip",
        "GET /v1/info/whois",
        "GET /v1/ip/reputation",
      ]),
    );
    const failures: string[] = [];
    for (const family of new Set(routes.map((r) => r.family))) {
      expect(await exhaust(t, family, { kind: "ip", ip: "127.0.0.1" })).toBe("rate_limited");
    }
    for (const r of routes) {
      for (const p of problemsOfEntry(r)) failures.push(`${r.method} ${r.path}: ${p}`);
      const res = await t.call(r.method, r.url, r.method === "GET" ? {} : { body: {} });
      for (const p of problemsOf429(res, "rate_limited"))
        failures.push(`${r.method} ${r.path} anonymous: ${p}`);
    }
    expect(failures).toEqual([]);
  });

  it("with a key: per key rate_limited, then per account quota_exceeded for another key of the account", async () => {
    const t = db.app(form, env);
    await freshMinute(10_000);
    const failures: string[] = [];
    for (const r of limitedRoutesOf(t)) {
      const u = await newUser(t, "limits");
      const first = await issueKey(t, u.userId);
      const caller = (id: string) => ({
        kind: "account" as const,
        userId: u.userId,
        plan: "free",
        credentialId: id,
      });
      const call = (secret: string) =>
        t.call(r.method, r.url, {
          headers: keyHeaders(form, secret),
          ...(r.method === "GET" ? {} : { body: {} }),
        });
      if (r.family !== "probes") {
        // 3 a minute for this key; the account's day (5) still has room for another key.
        expect(await exhaust(t, r.family, caller(first.id))).toBe("rate_limited");
        for (const p of problemsOf429(await call(first.secret), "rate_limited"))
          failures.push(`${r.method} ${r.path} per key: ${p}`);
      }
      const second = await issueKey(t, u.userId);
      expect(await exhaust(t, r.family, caller(second.id))).toBe("quota_exceeded");
      for (const p of problemsOf429(await call(second.secret), "quota_exceeded"))
        failures.push(`${r.method} ${r.path} per account: ${p}`);
    }
    expect(failures).toEqual([]);
  });
});
