import { beforeAll, describe, expect, it } from "vitest";
import { issueKey, keyHeaders, newUser, type TestUser } from "../../testing/accounts.js";
import { dbKinds, forms, planLimitsEnv, type TestApp } from "../../testing/test-app.js";
import { useTestDb } from "../../testing/use-test-db.js";
import { alertsApiHelpers, configs } from "./testing/alerts-api.js";

/**
 * Who may reach alert channels through the API, and how many: another account's channels, policies and
 * events are 404s, the plan's channel count is a 409 beyond it, and writes need the write scope.
 */
describe.each(dbKinds)("alerts API: channels on %s", (kind) => {
  const db = useTestDb(kind);

  describe.each(forms)("form %s", (form) => {
    let t: TestApp;
    let alice: TestUser;
    beforeAll(async () => {
      t = db.app(form, { VANTAGE_PLAN_LIMITS: planLimitsEnv({ free: { alert_channels: 50 } }) });
      alice = await newUser(t, "alice");
    });
    const { call, createChannel, createMonitor } = alertsApiHelpers(() => t, form);

    it("another account's channel, policy or event is a 404 for every operation, like an unknown id", async () => {
      const owner = await newUser(t, "owner");
      const other = await newUser(t, "other");
      const ch = (await createChannel(owner, "email")).body.data.id as string;
      const mon = await createMonitor(owner);
      const pol = (await call(owner, "POST", "/v1/alert-policies", { name: "p", monitor_id: mon })).body.data
        .id as string;
      const ops: [string, string, string, unknown?][] = [
        [ch, "GET", `/v1/alert-channels/${ch}`],
        [ch, "PATCH", `/v1/alert-channels/${ch}`, { name: "mine now" }],
        [ch, "POST", `/v1/alert-channels/${ch}/test`],
        [ch, "DELETE", `/v1/alert-channels/${ch}`],
        [pol, "GET", `/v1/alert-policies/${pol}`],
        [pol, "PATCH", `/v1/alert-policies/${pol}`, { name: "mine now" }],
        [pol, "DELETE", `/v1/alert-policies/${pol}`],
      ];
      for (const [id, method, path, body] of ops) {
        const theirs = await call(other, method, path, body);
        expect(theirs.status, `${method} ${path}`).toBe(404);
        expect(theirs.body.error.code).toBe("not_found");
        const unknown = await call(other, method, path.replace(id, `${id.slice(0, 4)}doesnotexist`), body);
        expect(unknown.body.error, `${method} ${path}`).toEqual(theirs.body.error);
      }
      for (const path of ["/v1/alert-channels", "/v1/alert-policies"]) {
        expect((await call(other, "GET", path)).body.data).toMatchObject({ items: [], total: 0 });
      }
      expect((await call(owner, "GET", `/v1/alert-channels/${ch}`)).body.data.name).toBe("email channel");
      expect((await call(owner, "GET", `/v1/alert-policies/${pol}`)).body.data.name).toBe("p");
    });

    it("the plan's channel count is a 409 beyond it, also for concurrent creates", async () => {
      const limited = db.app(form, { VANTAGE_PLAN_LIMITS: planLimitsEnv({ free: { alert_channels: 2 } }) });
      const u = await newUser(limited);
      const post = (i: number) =>
        limited.call("POST", "/v1/alert-channels", {
          headers: u.headers,
          body: { name: `c${i}`, type: "email", config: { to: [`o${i}@example.com`] } },
        });
      const results = await Promise.all([0, 1, 2, 3, 4].map(post));
      expect(results.map((r) => r.status).sort()).toEqual([201, 201, 409, 409, 409]);
      const refused = results.find((r) => r.status === 409)!;
      expect(refused.body.error).toMatchObject({ code: "conflict", details: { limit: 2, plan: "free" } });
      const list = await limited.call("GET", "/v1/alert-channels", { headers: u.headers });
      expect(list.body.data.total).toBe(2);
      await limited.call("DELETE", `/v1/alert-channels/${list.body.data.items[0].id}`, {
        headers: u.headers,
      });
      expect((await post(9)).status).toBe(201);
    });

    it("needs credentials, and the write scope for writes", async () => {
      expect((await t.call("GET", "/v1/alert-channels")).status).toBe(401);
      const key = await issueKey(t, alice.userId, { scopes: ["read"] });
      const headers = keyHeaders(form, key.secret);
      for (const path of ["/v1/alert-channels", "/v1/alert-policies", "/v1/alert-events"]) {
        expect((await t.call("GET", path, { headers })).status, path).toBe(200);
      }
      const write = await t.call("POST", "/v1/alert-channels", {
        headers,
        body: { name: "x", type: "email", config: configs.email!.config },
      });
      expect(write.status).toBe(403);
      expect(write.body.error.code).toBe("insufficient_scope");
    });
  });
});
