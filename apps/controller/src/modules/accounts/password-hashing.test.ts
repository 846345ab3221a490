import { performance } from "node:perf_hooks";
import bcrypt from "bcryptjs";
import { beforeAll, describe, expect, it } from "vitest";
import { ApiError } from "../../http/errors.js";
import { newUser, PASSWORD, uniqueEmail } from "../../testing/accounts.js";
import { dbKinds, forms, TEST_BCRYPT_COST, type TestApp } from "../../testing/test-app.js";
import { useTestDb } from "../../testing/use-test-db.js";
import { BCRYPT_COST, createPasswordHasher, DUMMY_HASH, defaultHasherThreads } from "./password-hasher.js";

/** Milliseconds the main thread's event loop was busy (not waiting for I/O) while `work` ran. */
async function loopBusyMs(work: () => Promise<unknown>): Promise<number> {
  const before = performance.eventLoopUtilization();
  await work();
  return performance.eventLoopUtilization(before).active;
}

/** The password hash stored for an account. */
async function storedHash(t: TestApp, userId: string): Promise<string> {
  const row = await t.db.kysely
    .selectFrom("users")
    .select("password_hash")
    .where("id", "=", userId)
    .executeTakeFirstOrThrow();
  return row.password_hash ?? "";
}

describe.each(dbKinds)("password hashing on %s", (kind) => {
  const db = useTestDb(kind);

  describe.each(forms)("form %s", (form) => {
    let t: TestApp;
    beforeAll(() => {
      // The deployments' cost (10), not the suite's lowered one: these tests are about hashing.
      t = db.app(form, {}, { bcryptCost: null });
    });

    it("registers and logs in without running bcrypt on the event loop", async () => {
      const u = await newUser(t, "loop");
      const login = (password: string) =>
        t.call("POST", "/v1/auth/login", { body: { email: u.email, password } });
      // Warm up (worker start, prepared statements) so the measurement sees steady-state work only.
      expect((await login(PASSWORD)).status).toBe(200);
      // What one bcrypt operation costs this event loop now, measured beside the rounds (before and after):
      // a loaded or slower machine slows both alike, so the bound below is a share of it, not milliseconds.
      const bcryptOnLoop = () => loopBusyMs(async () => bcrypt.hashSync(PASSWORD, BCRYPT_COST));
      const before = await bcryptOnLoop();
      const rounds = 3;
      let bcryptOps = 0;
      const busy = await loopBusyMs(async () => {
        for (let i = 0; i < rounds; i++) {
          const results = await Promise.all([
            login(PASSWORD),
            login("wrong password"),
            t.call("POST", "/v1/auth/login", { body: { email: uniqueEmail("nobody"), password: PASSWORD } }),
            t.call("POST", "/v1/auth/register", { body: { email: uniqueEmail("loop"), password: PASSWORD } }),
          ]);
          expect(results.map((r) => r.status)).toEqual([200, 401, 401, 201]);
          bcryptOps += results.length;
        }
      });
      const oneBcrypt = (before + (await bcryptOnLoop())) / 2;
      // One bcrypt operation at cost 10 costs 50–80 ms of CPU; on the event loop that was 64–73 ms of busy
      // loop per request here. What is left (routing, JSON, the database client; PGlite runs on this
      // thread) measured 4–11 ms on a quiet machine, and 60 ms with two CPU hogs beside it: at most half a
      // bcrypt operation, measured in the same conditions.
      expect(busy / bcryptOps).toBeLessThan(oneBcrypt / 2);
    });

    it("verifies hashes bcryptjs wrote ($2a$ and $2b$), and what it stores bcryptjs can verify", async () => {
      for (const prefix of ["2a", "2b"] as const) {
        const u = await newUser(t, `legacy${prefix}`);
        // bcryptjs writes $2b$; $2a$ differs only for passwords over 255 bytes, so the same digest with the
        // older prefix is what an older bcryptjs wrote for this password.
        const legacy = bcrypt.hashSync("legacy password", 10).replace(/^\$2b\$/, `$${prefix}$`);
        expect(legacy.startsWith(`$${prefix}$10$`)).toBe(true);
        await t.db.kysely
          .updateTable("users")
          .set({ password_hash: legacy })
          .where("id", "=", u.userId)
          .execute();
        const ok = await t.call("POST", "/v1/auth/login", {
          body: { email: u.email, password: "legacy password" },
        });
        expect(ok.status).toBe(200);
        const bad = await t.call("POST", "/v1/auth/login", { body: { email: u.email, password: PASSWORD } });
        expect(bad.status).toBe(401);
      }
      const stored = await storedHash(t, (await newUser(t, "format")).userId);
      expect(stored).toMatch(/^\$2[ab]\$10\$/);
      expect(bcrypt.compareSync(PASSWORD, stored)).toBe(true);
    });

    it("an app given a bcrypt cost (the suite's test apps) hashes at that cost and logs in with it", async () => {
      // `deps.bcryptCost` once reached nothing: every test app hashed at 10, 100 ms of CPU a login here.
      const low = db.app(form);
      const u = await newUser(low, "lowcost");
      expect(bcrypt.getRounds(await storedHash(low, u.userId))).toBe(TEST_BCRYPT_COST);
      const login = (password: string) =>
        low.call("POST", "/v1/auth/login", { body: { email: u.email, password } });
      expect((await login(PASSWORD)).status).toBe(200);
      expect((await login("wrong password")).status).toBe(401);
    });
  });
});

describe("the password pool", () => {
  it("hashes in bcrypt's format at the configured cost and compares in worker threads", async () => {
    const pool = createPasswordHasher({ threads: 1 });
    try {
      const hash = await pool.hash("pool password");
      expect(hash).toMatch(new RegExp(`^\\$2b\\$${BCRYPT_COST}\\$`));
      expect(bcrypt.compareSync("pool password", hash)).toBe(true);
      expect(await pool.compare("pool password", hash)).toBe(true);
      expect(await pool.compare("other password", hash)).toBe(false);
      // The dummy hash an unknown email is compared with costs what a real one does.
      expect(bcrypt.getRounds(DUMMY_HASH)).toBe(BCRYPT_COST);
      expect(await pool.compare("not-a-real-password", DUMMY_HASH)).toBe(false);
      expect(await pool.compareUnknown("not-a-real-password")).toBe(false);
    } finally {
      await pool.close();
    }
  });

  it("at another cost, compares unknown emails with a dummy made at that cost", async () => {
    const pool = createPasswordHasher({ threads: 1, cost: 5 });
    try {
      expect(bcrypt.getRounds(await pool.hash("x password"))).toBe(5);
      expect(await pool.compareUnknown("a password nobody has")).toBe(true);
      expect(await pool.compareUnknown("another password")).toBe(false);
    } finally {
      await pool.close();
    }
  });

  it("keeps a core for the event loop: one thread per core but one, at least one", () => {
    expect(defaultHasherThreads()).toBeGreaterThanOrEqual(1);
  });

  it("refuses work beyond its queue at once with 503 unavailable and Retry-After", async () => {
    const pool = createPasswordHasher({ threads: 1, maxQueue: 2 });
    try {
      const attempts = Array.from({ length: 6 }, (_, i) =>
        pool.hash(`password ${i}`).then(
          () => "done",
          (err: unknown) => err,
        ),
      );
      const results = await Promise.all(attempts);
      expect(results.filter((r) => r === "done")).toHaveLength(3); // one running, two waiting
      const refused = results.filter((r) => r !== "done");
      expect(refused).toHaveLength(3);
      for (const err of refused) {
        expect(err).toBeInstanceOf(ApiError);
        expect((err as ApiError).status).toBe(503);
        expect((err as ApiError).code).toBe("unavailable");
        expect((err as ApiError).headers?.["Retry-After"]).toBe("1");
      }
      // Once the queue drains, work is taken again.
      expect(await pool.compare("password 0", await pool.hash("password 0"))).toBe(true);
    } finally {
      await pool.close();
    }
  });

  it("after close, refuses with 503 instead of hanging", async () => {
    const pool = createPasswordHasher({ threads: 1 });
    await pool.hash("before close");
    await pool.close();
    await expect(pool.hash("after close")).rejects.toMatchObject({ status: 503, code: "unavailable" });
  });
});
