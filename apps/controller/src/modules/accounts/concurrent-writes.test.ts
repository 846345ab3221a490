import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { defaultPlans } from "../../lib/plans.js";
import { newUser, PASSWORD, uniqueEmail } from "../../testing/accounts.js";
import { freshWindow } from "../../testing/fresh-window.js";
import { dbKinds, type TestApp } from "../../testing/test-app.js";
import { useTestDb } from "../../testing/use-test-db.js";
import { LOGIN_FAILURES_PER_EMAIL, LOGIN_FAILURES_PER_IP, LOGIN_WINDOW_MS } from "./context.js";

/** How many statuses of each kind, e.g. `{ 201: 100, 409: 20 }`. */
function tally(statuses: number[]): Record<number, number> {
  const out: Record<number, number> = {};
  for (const s of statuses) out[s] = (out[s] ?? 0) + 1;
  return out;
}

// On PostgreSQL the test database has several connections, so these requests really race; on PGlite
// (one connection) they are queued, and the same answers are expected.
describe.each(dbKinds)("concurrent account writes on %s", (kind) => {
  const db = useTestDb(kind);
  let t: TestApp;
  beforeAll(() => {
    t = db.app("a");
  });

  it.each([
    ["API keys", "/v1/account/api-keys"],
    ["access tokens", "/v1/account/tokens"],
  ])(
    "%s: of the free plan's limit + 20 concurrent creates exactly the limit succeed, the rest 409",
    async (_, path) => {
      const u = await newUser(t, "race");
      const limit = defaultPlans.free.api_keys ?? 0;
      const attempts = limit + 20;
      const results = await Promise.all(
        Array.from({ length: attempts }, (_, i) =>
          t.call("POST", path, { headers: u.headers, body: { name: `k${i}` } }),
        ),
      );
      expect(tally(results.map((r) => r.status))).toEqual({ 201: limit, 409: 20 });
      expect(results.find((r) => r.status === 409)?.body.error.code).toBe("conflict");
      const list = await t.call("GET", path, { headers: u.headers });
      expect(list.body.data.total).toBe(limit);
    },
  );

  it("registering one email concurrently gives one 201 and 409 for the rest, never a 500", async () => {
    const email = uniqueEmail("twice");
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        t.call("POST", "/v1/auth/register", {
          // Case differs between attempts: addresses are unique case-insensitively.
          body: { email: i % 2 ? email.toLowerCase() : email, password: PASSWORD },
        }),
      ),
    );
    expect(tally(results.map((r) => r.status))).toEqual({ 201: 1, 409: 7 });
    const users = await t.db.kysely.selectFrom("users").select("id").where("email", "ilike", email).execute();
    expect(users).toHaveLength(1);
  });

  describe("failed-login limits under a burst of guesses", () => {
    let proxied: TestApp;
    beforeAll(() => {
      proxied = db.app("a", { VANTAGE_TRUSTED_PROXIES: "127.0.0.1" });
    });
    // Each burst must land in one 15-minute window.
    beforeEach(() => freshWindow(LOGIN_WINDOW_MS, 30_000));
    const burst = (n: number, attempt: (i: number) => { email: string; password: string }, ip: string) =>
      Promise.all(
        Array.from({ length: n }, (_, i) =>
          proxied.call("POST", "/v1/auth/login", { body: attempt(i), headers: { "x-forwarded-for": ip } }),
        ),
      );

    it("per email: only the limit's worth of concurrent wrong passwords are checked, the rest 429", async () => {
      const u = await newUser(proxied, "burst");
      const results = await burst(20, () => ({ email: u.email, password: "wrong password" }), "203.0.113.1");
      expect(tally(results.map((r) => r.status))).toEqual({ 401: LOGIN_FAILURES_PER_EMAIL, 429: 15 });
      const right = await burst(1, () => ({ email: u.email, password: PASSWORD }), "203.0.113.2");
      expect(right[0]?.status).toBe(429);
    });

    it("per IP: the same across many emails; earlier successes do not use up the IP's allowance", async () => {
      const u = await newUser(proxied, "ok");
      const ip = "203.0.113.3";
      for (let i = 0; i <= LOGIN_FAILURES_PER_IP; i++) {
        const [ok] = await burst(1, () => ({ email: u.email, password: PASSWORD }), ip);
        expect(ok?.status).toBe(200);
      }
      const n = LOGIN_FAILURES_PER_IP + 10;
      const results = await burst(n, () => ({ email: uniqueEmail("spray"), password: "wrong password" }), ip);
      expect(tally(results.map((r) => r.status))).toEqual({ 401: LOGIN_FAILURES_PER_IP, 429: 10 });
    });
  });
});
