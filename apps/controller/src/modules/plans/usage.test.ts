import { spawnSync } from "node:child_process";
import { appArgs, createTestDatabase } from "@vantage/testing";
import { describe, expect, it } from "vitest";
import { connectDb, migrate } from "../../db/connect.js";
import { issueKey, keyHeaders, newUser } from "../../testing/accounts.js";
import { serveNode, settle } from "../../testing/agents.js";
import { planLimitsEnv } from "../../testing/plan-limits.js";
import { tcpBody } from "../../testing/probe-requests.js";
import { dbKinds, forms } from "../../testing/test-app.js";
import { useTestDb } from "../../testing/use-test-db.js";

/** Metering per account, day and family; `GET /v1/account/usage`; the operator's plan command. */
describe.each(dbKinds)("usage metering on %s", (kind) => {
  const db = useTestDb(kind);
  const env = {
    VANTAGE_PLAN_LIMITS: planLimitsEnv({ free: { lookups_per_day: 100, node_probes_per_hour: 50 } }),
    VANTAGE_USAGE_FLUSH_MS: "60000",
  };
  const stored = async (userId: string) =>
    Object.fromEntries(
      (
        await db.testDb.db.kysely
          .selectFrom("usage_daily")
          .select(["family", "units", "calls"])
          .where("user_id", "=", userId)
          .execute()
      ).map((r) => [r.family, { units: Number(r.units), calls: Number(r.calls) }]),
    );

  describe.each(forms)("form %s", (form) => {
    it("meters answered calls with credentials per family; shows them with the limits; writes them on drain", async () => {
      const t = await db.freshApp(form, env);
      serveNode(t.bus, { id: `m${form}1` });
      serveNode(t.bus, { id: `m${form}2` });
      await settle();
      const u = await newUser(t, "meter");
      const key = await issueKey(t, u.userId);
      const headers = keyHeaders(form, key.secret);
      const ipQuery = form === "a" ? "q=8.8.8.8" : "ip=8.8.8.8";
      for (let i = 0; i < 2; i++) {
        expect((await t.call("GET", `/v1/info/ip?${ipQuery}`, { headers })).status).toBe(200);
      }
      // Refused input and anonymous calls are not metered.
      expect((await t.call("GET", `/v1/info/ip?${form === "a" ? "q" : "ip"}=nope`, { headers })).status).toBe(
        400,
      );
      expect((await t.call("GET", `/v1/info/ip?${ipQuery}`)).status).toBe(200);
      const probe = await t.call("POST", "/v1/probe/tcp", {
        body: tcpBody(form, "example.com", 443, [`m${form}1`, `m${form}2`]),
        headers: u.headers,
      });
      expect(probe.status).toBe(form === "a" ? 202 : 200);

      const res = await t.call("GET", "/v1/account/usage", { headers });
      expect(res.status).toBe(200);
      const data = res.body.data;
      expect(data.plan).toBe("free");
      expect(new Date(data.period.start).getUTCDate()).toBe(1);
      expect(Date.parse(data.period.end)).toBeGreaterThan(Date.now());
      expect(data.usage).toEqual([
        { family: "probes", unit: "node-probes", units: 2, calls: 1, today_units: 2 },
        { family: "lookups", unit: "lookups", units: 2, calls: 2, today_units: 2 },
        { family: "reputation", unit: "reputation calls", units: 0, calls: 0, today_units: 0 },
        { family: "alert_tests", unit: "test sends", units: 0, calls: 0, today_units: 0 },
      ]);
      expect(data.limits).toEqual(
        expect.arrayContaining([
          expect.objectContaining({
            family: "lookups",
            window: "day",
            per: "account",
            code: "quota_exceeded",
            limit: 100,
            used: 2,
            remaining: 98,
          }),
          expect.objectContaining({ family: "probes", window: "hour", per: "account", limit: 50, used: 2 }),
        ]),
      );
      expect(data.plan_limits).toMatchObject({ lookups_per_day: 100, api_keys: 5 });
      // Nothing in the table yet (flushes every 60 s here): the answer added this controller's counts.
      expect(await stored(u.userId)).toEqual({});
      await t.drain();
      expect(await stored(u.userId)).toEqual({
        lookups: { units: 2, calls: 2 },
        probes: { units: 2, calls: 1 },
      });
      // And from the table alone, as another controller would see it.
      const other = await db.freshApp(form, env);
      const again = await other.call("GET", "/v1/account/usage", { headers: u.headers });
      expect(again.body.data.usage[1]).toMatchObject({ family: "lookups", units: 2, calls: 2 });
    });

    it("limits and the profile follow the account's plan", async () => {
      const t = db.app(form, env);
      const u = await newUser(t, "upgrade");
      await db.testDb.db.kysely
        .updateTable("users")
        .set({ plan: "pro" })
        .where("id", "=", u.userId)
        .execute();
      // A credential checked after the change carries the new plan (cached ones within 10 s).
      const key = await issueKey(t, u.userId);
      const headers = keyHeaders(form, key.secret);
      const usage = await t.call("GET", "/v1/account/usage", { headers });
      expect(usage.body.data.plan).toBe("pro");
      expect(usage.body.data.plan_limits).toMatchObject({ api_keys: 25, min_monitor_interval_s: 15 });
      const ip = await t.call("GET", `/v1/info/ip?${form === "a" ? "q" : "ip"}=8.8.8.8`, { headers });
      expect(ip.status).toBe(200);
      const profile = await t.call("GET", "/v1/account/profile", { headers });
      if (form === "b") expect(profile.body.data.plan).toBe("pro");
      else expect(profile.body.data).not.toHaveProperty("plan");
    });

    it("needs credentials", async () => {
      const t = db.app(form, env);
      const res = await t.call("GET", "/v1/account/usage");
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe("unauthorized");
    });
  });
});

describe("pnpm account:plan (a real process on PostgreSQL)", () => {
  it("sets the plan an account's limits come from; unknown plans and emails are refused", async () => {
    const tdb = await createTestDatabase();
    const database = await connectDb({ databaseUrl: tdb.url, dataDir: "unused", maxConnections: 2 });
    try {
      await migrate(database);
      await database.kysely
        .insertInto("users")
        .values({ id: "usr_plan_cli", email: "Plan.Owner@example.com", password_hash: "x" } as never)
        .execute();
      const run = (...args: string[]) =>
        spawnSync(process.execPath, [...appArgs("account:plan"), ...args], {
          env: { ...process.env, DATABASE_URL: tdb.url, VANTAGE_LOG_LEVEL: "silent" },
          encoding: "utf8",
        });
      const ok = run("plan.owner@example.com", "pro");
      expect(ok.stderr).toBe("");
      expect(ok.status).toBe(0);
      expect(ok.stdout).toContain("plan free → pro");
      const row = await database.kysely
        .selectFrom("users")
        .select("plan")
        .where("id", "=", "usr_plan_cli")
        .executeTakeFirstOrThrow();
      expect(row.plan).toBe("pro");
      const unknownPlan = run("plan.owner@example.com", "gold");
      expect(unknownPlan.status).toBe(2);
      expect(unknownPlan.stderr).toContain('unknown plan "gold"');
      const nobody = run("nobody@example.com", "business");
      expect(nobody.status).toBe(1);
      expect(nobody.stderr).toContain("no account has the email nobody@example.com");
      expect(run().status).toBe(2);
    } finally {
      await database.close();
      await tdb.drop();
    }
  }, 60_000);
});
