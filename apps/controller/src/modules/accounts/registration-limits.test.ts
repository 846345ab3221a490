import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { PASSWORD, uniqueEmail } from "../../testing/accounts.js";
import { freshWindow } from "../../testing/fresh-window.js";
import { dbKinds, forms, type TestApp } from "../../testing/test-app.js";
import { useTestDb } from "../../testing/use-test-db.js";
import { REGISTER_WINDOW_MS } from "./context.js";

/** The documented defaults (docs/security.md): per client IP (IPv6 /64) and per address, per hour. */
const PER_IP = 10;
const PER_ADDRESS = 3;

let ipCounter = 0;
/** A fresh documentation-range client IP per scenario (the app trusts 127.0.0.1 as a proxy). */
const freshIp = () => `203.0.113.${++ipCounter}`;

function tally(statuses: number[]): Record<number, number> {
  const out: Record<number, number> = {};
  for (const s of statuses) out[s] = (out[s] ?? 0) + 1;
  return out;
}

describe.each(dbKinds)("registration limits on %s", (kind) => {
  const db = useTestDb(kind);

  describe.each(forms)("form %s", (form) => {
    let t: TestApp;
    beforeAll(() => {
      // The test configuration turns these limits off for the other tests; "" restores the defaults.
      t = db.app(form, {
        VANTAGE_TRUSTED_PROXIES: "127.0.0.1",
        VANTAGE_REGISTER_LIMIT_IP: "",
        VANTAGE_REGISTER_LIMIT_EMAIL: "",
      });
    });
    // Each test's registrations must land in one hour's window.
    beforeEach(() => freshWindow(REGISTER_WINDOW_MS, 30_000));
    const register = (email: string, ip: string) =>
      t.call("POST", "/v1/auth/register", {
        body: { email, password: PASSWORD },
        headers: { "x-forwarded-for": ip },
      });
    const usersNamed = async (email: string) =>
      (
        await t.db.kysely
          .selectFrom("users")
          .select("id")
          .where("email", "=", email.replace(/@.*$/, "@example.com"))
          .execute()
      ).length;

    it(`allows ${PER_IP} registrations per client IP and hour, then 429 with Retry-After; other IPs are unaffected`, async () => {
      const ip = freshIp();
      for (let i = 0; i < PER_IP; i++) expect((await register(uniqueEmail("ip"), ip)).status).toBe(201);
      const email = uniqueEmail("ip-over");
      const blocked = await register(email, ip);
      expect(blocked.status).toBe(429);
      expect(blocked.body.error.code).toBe("rate_limited");
      const retryAfter = Number(blocked.headers.get("retry-after"));
      expect(retryAfter).toBeGreaterThan(0);
      expect(retryAfter).toBeLessThanOrEqual(3600);
      expect(blocked.headers.get("ratelimit-limit")).toBe(String(PER_IP));
      expect(blocked.headers.get("ratelimit-remaining")).toBe("0");
      // Refused before any work: no account, no message queued.
      expect(await usersNamed(email)).toBe(0);
      const queued = await t.db.kysely
        .selectFrom("delivery_outbox")
        .select("id")
        .where("destination", "=", email.replace(/@.*$/, "@example.com"))
        .execute();
      expect(queued).toHaveLength(0);
      expect((await register(email, freshIp())).status).toBe(201);
    });

    it("counts IPv6 clients per /64", async () => {
      const net = `2001:db8:${(++ipCounter).toString(16)}:1`;
      for (let i = 0; i < PER_IP; i++) {
        expect((await register(uniqueEmail("v6"), `${net}::${(i + 1).toString(16)}`)).status).toBe(201);
      }
      expect((await register(uniqueEmail("v6"), `${net}:ffff:ffff:ffff:ffff`)).status).toBe(429);
      expect((await register(uniqueEmail("v6"), `2001:db8:${(++ipCounter).toString(16)}:2::1`)).status).toBe(
        201,
      );
    });

    it("a burst from one IP cannot slip past the limit: exactly the limit succeeds", async () => {
      const ip = freshIp();
      const results = await Promise.all(
        Array.from({ length: PER_IP + 6 }, () => register(uniqueEmail("burst"), ip)),
      );
      expect(tally(results.map((r) => r.status))).toEqual({ 201: PER_IP, 429: 6 });
    });

    it(`allows ${PER_ADDRESS} registration attempts per address and hour, +tags counting as one address`, async () => {
      const mailbox = uniqueEmail("victim");
      const [local, domain] = mailbox.split("@") as [string, string];
      const variants = Array.from({ length: PER_ADDRESS }, (_, i) => `${local}+${i}@${domain}`);
      for (const email of variants) expect((await register(email, freshIp())).status).toBe(201);
      const blocked = await register(`${local.toUpperCase()}+again@${domain}`, freshIp());
      expect(blocked.status).toBe(429);
      expect(blocked.body.error.code).toBe("rate_limited");
      expect(blocked.headers.get("ratelimit-limit")).toBe(String(PER_ADDRESS));
      expect(Number(blocked.headers.get("retry-after"))).toBeGreaterThan(0);
      // A taken address is counted too (each attempt costs a password hash), and another address is free.
      expect((await register(uniqueEmail("other"), freshIp())).status).toBe(201);
    });

    it("documents the limits in the OpenAPI description of the route", () => {
      const paths = t.openapi().paths as Record<string, { post: { description: string } }>;
      const description = paths["/v1/auth/register"]!.post.description;
      expect(description).toMatch(new RegExp(`${PER_IP} per hour per client IP`));
      expect(description).toMatch(new RegExp(`${PER_ADDRESS} per hour per address`));
      expect(description).toMatch(/429/);
    });
  });
});
