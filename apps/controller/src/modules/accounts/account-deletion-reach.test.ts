import { createTestDatabase, type TestDatabase } from "@vantage/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectDb, type Db, migrate } from "../../db/connect.js";
import { issueKey, keyHeaders, newUser, PASSWORD } from "../../testing/accounts.js";
import { forms, makeTestApp, type TestApp } from "../../testing/test-app.js";
import { until } from "../../testing/until.js";

const profile = (t: TestApp, headers: Record<string, string>) =>
  t.call("GET", "/v1/account/profile", { headers });

/**
 * Two controllers on one PostgreSQL, as in account-changes.test.ts: B has the account's key and session
 * cached; the deletion through A must reach B through the NOTIFY, well within the cache's 10 s.
 */
describe("account deletion reaches every controller at once", () => {
  let tdb: TestDatabase | undefined;
  const dbs: Db[] = [];
  const apps: TestApp[] = [];

  beforeAll(async () => {
    tdb = await createTestDatabase();
    for (let i = 0; i < 2; i++) {
      dbs.push(await connectDb({ databaseUrl: tdb.url, dataDir: "unused", maxConnections: 5 }));
    }
    await migrate(dbs[0]!);
  });

  afterAll(async () => {
    for (const t of apps) {
      await t.modules.accounts.watcher.stop();
      await t.drain();
      await t.presence.stop();
      await t.modules.accounts.close();
    }
    for (const db of dbs) await db.close();
    await tdb?.drop();
  });

  it.each(forms)("form %s: B refuses the deleted account's key and session within 3 s", async (form) => {
    const testDb = (db: Db) => ({ kind: "postgres" as const, db, close: async () => {} });
    const a = makeTestApp(testDb(dbs[0]!), form);
    const b = makeTestApp(testDb(dbs[1]!), form);
    apps.push(a, b);
    await a.modules.accounts.watcher.start();
    await b.modules.accounts.watcher.start();
    const u = await newUser(a, "gone");
    const key = await issueKey(a, u.userId);
    const byKey = keyHeaders(form, key.secret);
    expect((await profile(b, byKey)).status).toBe(200);
    expect((await profile(b, u.headers)).status).toBe(200);

    const res = await a.call("DELETE", "/v1/account", { headers: u.headers, body: { password: PASSWORD } });
    expect(res.status, res.text).toBe(200);
    await until("B refuses the key", async () => (await profile(b, byKey)).status === 401, 3000, 20);
    await until("B refuses the session", async () => (await profile(b, u.headers)).status === 401, 3000, 20);
  });
});
