import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { newUser, PASSWORD, uniqueEmail } from "../../testing/accounts.js";
import { freshWindow } from "../../testing/fresh-window.js";
import { dbKinds, forms, type TestApp } from "../../testing/test-app.js";
import { useTestDb } from "../../testing/use-test-db.js";
import { LOGIN_FAILURES_PER_EMAIL, LOGIN_FAILURES_PER_IP, LOGIN_WINDOW_MS } from "./context.js";

let ipCounter = 0;
/** A fresh documentation-range client IP per scenario (the app trusts 127.0.0.1 as a proxy). */
const freshIp = () => `198.51.100.${++ipCounter}`;

describe.each(dbKinds)("failed-login limits on %s", (kind) => {
  const db = useTestDb(kind);

  describe.each(forms)("form %s", (form) => {
    let t: TestApp;
    let peer: TestApp;
    beforeAll(() => {
      // Two controllers on one database: the counters live in the database, so they share them.
      t = db.app(form, { VANTAGE_TRUSTED_PROXIES: "127.0.0.1" });
      peer = db.app(form, { VANTAGE_TRUSTED_PROXIES: "127.0.0.1" });
    });
    // Each test's failures must land in one 15-minute window (CI once crossed 18:00 mid-test).
    beforeEach(() => freshWindow(LOGIN_WINDOW_MS, 30_000));
    const login = (app: TestApp, email: string, password: string, ip: string) =>
      app.call("POST", "/v1/auth/login", { body: { email, password }, headers: { "x-forwarded-for": ip } });

    it("limits failures per email across instances: 429 with Retry-After, even for the right password", async () => {
      const u = await newUser(t, "limited");
      for (let i = 0; i < LOGIN_FAILURES_PER_EMAIL; i++) {
        const res = await login(i % 2 ? peer : t, u.email, "wrong password", freshIp());
        expect(res.status).toBe(401);
      }
      const blocked = await login(peer, u.email, PASSWORD, freshIp());
      expect(blocked.status).toBe(429);
      expect(blocked.body.error.code).toBe("rate_limited");
      const retryAfter = Number(blocked.headers.get("retry-after"));
      expect(retryAfter).toBeGreaterThan(0);
      expect(retryAfter).toBeLessThanOrEqual(15 * 60);
      expect(blocked.headers.get("ratelimit-limit")).toBe(String(LOGIN_FAILURES_PER_EMAIL));
      expect(blocked.headers.get("ratelimit-remaining")).toBe("0");
      // The same address with another mailbox is unaffected.
      const other = await newUser(t, "unaffected");
      expect((await login(t, other.email, PASSWORD, freshIp())).status).toBe(200);
    });

    it("a successful login clears the email's failure count", async () => {
      const u = await newUser(t, "reset");
      const ip = freshIp();
      for (let i = 0; i < LOGIN_FAILURES_PER_EMAIL - 1; i++) await login(t, u.email, "wrong password", ip);
      expect((await login(t, u.email, PASSWORD, ip)).status).toBe(200);
      for (let i = 0; i < LOGIN_FAILURES_PER_EMAIL - 1; i++) {
        expect((await login(t, u.email, "wrong password", ip)).status).toBe(401);
      }
      expect((await login(t, u.email, PASSWORD, ip)).status).toBe(200);
    });

    it("limits failures per client IP whatever the emails; other IPs are unaffected", async () => {
      const u = await newUser(t, "victim");
      const ip = freshIp();
      for (let i = 0; i < LOGIN_FAILURES_PER_IP; i++) {
        const res = await login(i % 2 ? peer : t, uniqueEmail("spray"), "wrong password", ip);
        expect(res.status).toBe(401);
      }
      const blocked = await login(t, u.email, PASSWORD, ip);
      expect(blocked.status).toBe(429);
      expect(blocked.body.error.code).toBe("rate_limited");
      expect(Number(blocked.headers.get("retry-after"))).toBeGreaterThan(0);
      expect((await login(t, u.email, PASSWORD, freshIp())).status).toBe(200);
    });
  });
});
