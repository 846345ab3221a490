import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { appArgs, createTestDatabase, type TestDatabase } from "@vantage/testing";
import { sql } from "kysely";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectDb, type Db, migrate } from "../../db/connect.js";
import { notify } from "../../db/notify.js";
import { defaultPlans } from "../../lib/plans.js";
import { startRuntime } from "../../runtime.js";
import { issueKey, keyHeaders, newUser } from "../../testing/accounts.js";
import { type Form, forms, makeTestApp, type TestApp, testConfig } from "../../testing/test-app.js";
import { until } from "../../testing/until.js";
import { useTestDb } from "../../testing/use-test-db.js";
import { ACCOUNTS_CHANNEL } from "./index.js";

/**
 * Credentials are cached for 10 s per controller. These tests cache an account's key or session on
 * controller B, change the account through controller A, and expect B to act on the change well within
 * that time (a 3 s bound: the NOTIFY, not the TTL, must be what did it).
 */
const SOON_MS = 3000;

async function planSeen(t: TestApp, headers: Record<string, string>): Promise<string> {
  const res = await t.call("GET", "/v1/account/usage", { headers });
  if (res.status !== 200) throw new Error(`usage: ${res.status} ${res.text}`);
  return res.body.data.plan as string;
}

async function stopApp(t: TestApp): Promise<void> {
  await t.modules.accounts.watcher.stop();
  await t.drain();
  await t.presence.stop();
  await t.modules.accounts.close();
}

describe("account changes reach every controller at once (PostgreSQL LISTEN/NOTIFY)", () => {
  let tdb: TestDatabase | undefined;
  const dbs: Db[] = [];
  const pairs = new Map<Form, { a: TestApp; b: TestApp }>();
  const pair = (form: Form) => pairs.get(form)!;

  beforeAll(async () => {
    tdb = await createTestDatabase();
    // Two connections as two controllers have them: each its own pool and its own listen connection.
    for (let i = 0; i < 2; i++) {
      dbs.push(await connectDb({ databaseUrl: tdb.url, dataDir: "unused", maxConnections: 5 }));
    }
    await migrate(dbs[0]!);
    const testDb = (db: Db) => ({ kind: "postgres" as const, db, close: async () => {} });
    for (const form of forms) {
      const a = makeTestApp(testDb(dbs[0]!), form);
      const b = makeTestApp(testDb(dbs[1]!), form);
      await a.modules.accounts.watcher.start();
      await b.modules.accounts.watcher.start();
      pairs.set(form, { a, b });
    }
  });

  afterAll(async () => {
    for (const { a, b } of pairs.values()) {
      await stopApp(a);
      await stopApp(b);
    }
    for (const db of dbs) await db.close();
    await tdb?.drop();
  });

  it.each(forms)(
    "form %s: a plan set through A's service applies on B, which had the key and the session cached",
    async (form) => {
      const { a, b } = pair(form);
      const u = await newUser(a, "plan");
      const key = await issueKey(a, u.userId);
      const byKey = keyHeaders(form, key.secret);
      expect(await planSeen(b, byKey)).toBe("free");
      expect(await planSeen(b, u.headers)).toBe("free");

      // B really serves from its cache: a change in the table alone (no NOTIFY) is not seen yet.
      await dbs[0]!.kysely
        .updateTable("users")
        .set({ plan: "business" })
        .where("id", "=", u.userId)
        .execute();
      expect(await planSeen(b, byKey)).toBe("free");

      expect(await a.modules.accounts.service.setPlan(u.userId, "pro")).toEqual({ before: "business" });
      await until(
        "B shows the pro plan for the key",
        async () => (await planSeen(b, byKey)) === "pro",
        SOON_MS,
        20,
      );
      await until(
        "B shows the pro plan for the session",
        async () => (await planSeen(b, u.headers)) === "pro",
        SOON_MS,
        20,
      );
      const usage = await b.call("GET", "/v1/account/usage", { headers: byKey });
      expect(usage.body.data.plan_limits.monitors).toBe(defaultPlans.pro.monitors);
      expect(usage.body.data.plan_limits.api_keys).toBe(defaultPlans.pro.api_keys);
    },
  );

  it("setPlan of an unknown account is undefined and changes nothing", async () => {
    const { a } = pair("b");
    expect(await a.modules.accounts.service.setPlan("usr_nobody", "pro")).toBeUndefined();
  });

  it.each(forms)("form %s: a key revoked through A's API is refused by B", async (form) => {
    const { a, b } = pair(form);
    const u = await newUser(a, "revoke");
    const key = await issueKey(a, u.userId);
    const headers = keyHeaders(form, key.secret);
    expect((await b.call("GET", "/v1/account/profile", { headers })).status).toBe(200);

    const revoked = await a.call("DELETE", `/v1/account/api-keys/${key.id}`, { headers: u.headers });
    expect(revoked.status).toBe(200);
    await until(
      "B refuses the revoked key",
      async () => (await b.call("GET", "/v1/account/profile", { headers })).status === 401,
      SOON_MS,
      20,
    );
    const refused = await b.call("GET", "/v1/account/usage", { headers });
    expect(refused.status).toBe(401);
    expect(refused.body.error.code).toBe("unauthorized");
  });

  it.each(forms)("form %s: a session logged out on A is refused by B", async (form) => {
    const { a, b } = pair(form);
    const u = await newUser(a, "logout");
    expect((await b.call("GET", "/v1/account/profile", { headers: u.headers })).status).toBe(200);

    expect((await a.call("POST", "/v1/auth/logout", { headers: u.headers })).status).toBe(200);
    await until(
      "B refuses the logged-out session",
      async () => (await b.call("GET", "/v1/account/profile", { headers: u.headers })).status === 401,
      SOON_MS,
      20,
    );
  });

  it.each(forms)(
    "form %s: the listeners survive their connections being killed, and a later change still arrives",
    async (form) => {
      const { a, b } = pair(form);
      const listenPids = async () => {
        const { rows } = await sql<{ pid: number }>`
          select pid from pg_stat_activity
          where datname = current_database() and pid <> pg_backend_pid() and query ilike 'listen%'`.execute(
          dbs[0]!.kysely,
        );
        return rows.map((r) => r.pid);
      };
      const { rows: killed } = await sql<{ pid: number }>`
        select pid from pg_stat_activity
        where datname = current_database() and pid <> pg_backend_pid() and query ilike 'listen%'
          and pg_terminate_backend(pid)`.execute(dbs[0]!.kysely);
      // One listen connection per controller process (A's and B's), whatever the number of channels.
      expect(killed).toHaveLength(2);
      const gone = new Set(killed.map((r) => r.pid));
      await until(
        "both processes listening again on new connections",
        async () => {
          const now = await listenPids();
          return now.length === 2 && now.every((pid) => !gone.has(pid));
        },
        20_000,
        50,
      );

      // Cached after the new LISTEN (which empties the cache), so only a NOTIFY can change what B serves.
      const u = await newUser(a, "relisten");
      const key = await issueKey(a, u.userId);
      const headers = keyHeaders(form, key.secret);
      expect(await planSeen(b, headers)).toBe("free");
      await a.modules.accounts.service.setPlan(u.userId, "business");
      await until(
        "B shows the business plan",
        async () => (await planSeen(b, headers)) === "business",
        SOON_MS,
        20,
      );
      expect((await a.call("DELETE", `/v1/account/api-keys/${key.id}`, { headers: u.headers })).status).toBe(
        200,
      );
      await until(
        "B refuses the revoked key",
        async () => (await b.call("GET", "/v1/account/usage", { headers })).status === 401,
        SOON_MS,
        20,
      );
    },
  );

  it("the runtime's api role runs the watcher: a key revoked on A is refused through the runtime's port", async () => {
    const { a } = pair("b");
    const rt = await startRuntime(
      testConfig("b", { DATABASE_URL: tdb!.url, VANTAGE_ROLES: "api" }),
      pino({ level: "silent" }),
    );
    try {
      const u = await newUser(a, "runtime");
      const key = await issueKey(a, u.userId);
      const status = async () =>
        (await fetch(`${rt.url}/v1/account/profile`, { headers: keyHeaders("b", key.secret) })).status;
      expect(await status()).toBe(200);
      expect((await a.call("DELETE", `/v1/account/api-keys/${key.id}`, { headers: u.headers })).status).toBe(
        200,
      );
      await until("the runtime refuses the revoked key", async () => (await status()) === 401, SOON_MS, 20);
    } finally {
      await rt.stop();
    }
  }, 60_000);

  it("pnpm account:plan (another process) sends the change: a running controller applies it at once", async () => {
    const { b } = pair("b");
    const u = await newUser(b, "cli");
    const key = await issueKey(b, u.userId);
    const headers = keyHeaders("b", key.secret);
    expect(await planSeen(b, headers)).toBe("free");
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [...appArgs("account:plan"), u.email, "business"],
      { env: { ...process.env, DATABASE_URL: tdb!.url, VANTAGE_LOG_LEVEL: "silent" }, encoding: "utf8" },
    );
    expect(stdout).toContain("plan free → business");
    await until(
      "B shows the business plan",
      async () => (await planSeen(b, headers)) === "business",
      SOON_MS,
      20,
    );
  }, 60_000);
});

describe("account changes on PGlite (one process)", () => {
  const fixture = useTestDb("pglite");
  const started: TestApp[] = [];
  const app = async (form: Form) => {
    const t = fixture.app(form);
    await t.modules.accounts.watcher.start();
    started.push(t);
    return t;
  };
  afterAll(async () => {
    for (const t of started) await t.modules.accounts.watcher.stop();
  });

  it.each(forms)("form %s: setPlan takes effect at once in the same app", async (form) => {
    const t = await app(form);
    const u = await newUser(t, "embedded");
    const key = await issueKey(t, u.userId);
    const byKey = keyHeaders(form, key.secret);
    expect(await planSeen(t, byKey)).toBe("free");
    expect(await planSeen(t, u.headers)).toBe("free");
    expect(await t.modules.accounts.service.setPlan(u.userId, "pro")).toEqual({ before: "free" });
    expect(await planSeen(t, byKey)).toBe("pro");
    expect(await planSeen(t, u.headers)).toBe("pro");
  });

  it.each(forms)(
    "form %s: the watcher acts on a NOTIFY sent outside the service, and ignores malformed ones",
    async (form) => {
      const t = await app(form);
      const u = await newUser(t, "watcher");
      const key = await issueKey(t, u.userId);
      const headers = keyHeaders(form, key.secret);
      expect(await planSeen(t, headers)).toBe("free");
      const { kysely } = fixture.testDb.db;
      await kysely.updateTable("users").set({ plan: "business" }).where("id", "=", u.userId).execute();
      for (const junk of ["not json", "null", "{}", '{"user_id":5}', '{"user_id":""}', "[]"]) {
        await notify(kysely, ACCOUNTS_CHANNEL, junk);
      }
      // None of them named the account: its cached plan stands.
      expect(await planSeen(t, headers)).toBe("free");
      await notify(kysely, ACCOUNTS_CHANNEL, JSON.stringify({ user_id: u.userId }));
      await until(
        "the app shows the business plan",
        async () => (await planSeen(t, headers)) === "business",
        SOON_MS,
        20,
      );
    },
  );
});
