import { pino } from "pino";
import { Webhook } from "standardwebhooks";
import { beforeAll, describe, expect, it } from "vitest";
import { defaultPlans } from "../../lib/plans.js";
import { createSecretBox, SecretKey } from "../../lib/secret-box.js";
import { issueKey, keyHeaders, markVerified, newUser, type TestUser } from "../../testing/accounts.js";
import { dbKinds, forms, planLimitsEnv, type TestApp } from "../../testing/test-app.js";
import { useTestDb } from "../../testing/use-test-db.js";
import { webhookChannel } from "./channels/webhook.js";
import { makeEvents } from "./events.js";
import { createAlertsService } from "./service.js";
import { alertsApiHelpers, configs, maskedOf, rowText, secretValues, whsec } from "./testing/alerts-api.js";
import { SECRET_MASK } from "./types.js";

const silent = pino({ level: "silent" });

/** Alert channels through the API: the 8 types, secrets masked and sealed, settings merged and checked, ownership, the test endpoint, the plan's count, scopes, and the service without a key. */
describe.each(dbKinds)("alerts API: channels on %s", (kind) => {
  const db = useTestDb(kind);

  describe.each(forms)("form %s", (form) => {
    const sizeKey = form === "a" ? "limit" : "per_page";
    let t: TestApp;
    let alice: TestUser;
    beforeAll(async () => {
      t = db.app(form, { VANTAGE_PLAN_LIMITS: planLimitsEnv({ free: { alert_channels: 50 } }) });
      alice = await newUser(t, "alice");
    });
    const { call, createChannel, channelRow, openRow, createMonitor } = alertsApiHelpers(() => t, form);

    it("creates each of the 8 types; secrets are masked in every answer and sealed in the row", async () => {
      const u = await newUser(t);
      const ids: string[] = [];
      for (const type of Object.keys(configs)) {
        const { config, secrets } = configs[type]!;
        const created = await call(u, "POST", "/v1/alert-channels", { name: `${type} ch`, type, config });
        expect(created.status, `${type}: ${created.text}`).toBe(201);
        const ch = created.body.data;
        expect(ch.id).toMatch(/^chn_[a-z0-9]+$/);
        expect(ch).toMatchObject({ name: `${type} ch`, type, config: maskedOf(type) });
        ids.push(ch.id);

        const got = await call(u, "GET", `/v1/alert-channels/${ch.id}`);
        expect(got.status).toBe(200);
        expect(got.body.data).toEqual(ch);
        for (const secret of secretValues(type)) {
          expect(created.text, type).not.toContain(secret);
          expect(got.text, type).not.toContain(secret);
        }

        // In the row: the plain settings in `config`, the secret ones sealed (and only openable with the key).
        const row = await channelRow(ch.id);
        const plain = Object.fromEntries(Object.entries(config).filter(([k]) => !secrets.includes(k)));
        expect(row.config).toEqual(plain);
        if (secrets.length === 0) expect(row.secrets).toBeNull();
        else expect(row.secrets).toMatch(/^v1\./);
        for (const secret of secretValues(type)) {
          expect(row.secrets ?? "", type).not.toContain(secret);
          expect(JSON.stringify(row.config), type).not.toContain(secret);
        }
        expect(openRow(row)).toEqual(Object.fromEntries(secrets.map((k) => [k, config[k]])));
        // Read straight from the database too, as text: no secret in any column.
        const text = await rowText(t, ch.id);
        expect(text).toContain(ch.id);
        for (const secret of secretValues(type)) expect(text, type).not.toContain(secret);
      }

      const list = await call(u, "GET", "/v1/alert-channels");
      expect(list.status).toBe(200);
      expect(list.body.data).toMatchObject({ total: 8, page: 1, [sizeKey]: 100 });
      expect(list.body.data.items.map((c: { id: string }) => c.id)).toEqual([...ids].reverse());
      for (const item of list.body.data.items) {
        expect(item.config).toEqual(maskedOf(item.type));
        expect(typeof item.created_at).toBe("string");
      }
      for (const type of Object.keys(configs))
        for (const secret of secretValues(type)) expect(list.text).not.toContain(secret);
      const page2 = await call(u, "GET", `/v1/alert-channels?page=2&${sizeKey}=3`);
      expect(page2.body.data).toMatchObject({ total: 8, page: 2, [sizeKey]: 3 });
      expect(page2.body.data.items.map((c: { id: string }) => c.id)).toEqual([ids[4], ids[3], ids[2]]);
    });

    it("a webhook channel without a secret gets a generated whsec_ one, answered once and signing with it", async () => {
      const u = await newUser(t);
      const url = "https://hooks.example.com/vantage";
      const created = await call(u, "POST", "/v1/alert-channels", {
        name: "w",
        type: "webhook",
        config: { url },
      });
      expect(created.status, created.text).toBe(201);
      const secret = created.body.data.generated.secret as string;
      expect(Buffer.from(secret.slice("whsec_".length), "base64")).toHaveLength(32);
      expect(created.body.data.config).toEqual({ url, secret: SECRET_MASK });

      // Never again: not in the channel's GET or the list; sealed in the row, and it is what signs.
      const got = await call(u, "GET", `/v1/alert-channels/${created.body.data.id}`);
      expect(got.body.data).not.toHaveProperty("generated");
      expect(got.text).not.toContain(secret);
      expect((await call(u, "GET", "/v1/alert-channels")).text).not.toContain(secret);
      const row = await channelRow(created.body.data.id);
      expect(openRow(row)).toEqual({ secret });
      const [request] = webhookChannel.build(
        {
          kind: "test",
          event_id: "evt_1",
          monitor: null,
          occurred_at: new Date(0).toISOString(),
          locale: "en",
        },
        { url, secret },
        { now: () => Date.now(), pagerdutyUrl: "", smsBaseUrl: "", randomId: () => "x" },
      );
      if (request?.kind !== "http") throw new Error("a webhook sends HTTP");
      expect(() => new Webhook(secret).verify(request.body, request.headers)).not.toThrow();

      // A null secret is generated too; a given one is kept and nothing is generated.
      const nulled = await call(u, "POST", "/v1/alert-channels", {
        name: "w2",
        type: "webhook",
        config: { url, secret: null },
      });
      expect(nulled.status, nulled.text).toBe(201);
      expect(nulled.body.data.generated.secret).toMatch(/^whsec_/);
      expect(nulled.body.data.generated.secret).not.toBe(secret);
      const given = await createChannel(u, "webhook");
      expect(given.status).toBe(201);
      expect(given.body.data).not.toHaveProperty("generated");
      expect(openRow(await channelRow(given.body.data.id))).toEqual({ secret: whsec });
    });

    it("GET and the list say how the channel's deliveries go: failing, since when, the last error, the next attempt, what waits", async () => {
      const u = await newUser(t);
      const created = await createChannel(u, "webhook");
      expect(created.status).toBe(201);
      const id = created.body.data.id as string;
      const well = {
        failing: false,
        failing_since: null,
        next_attempt_at: null,
        last_error: null,
        last_error_at: null,
        queued: 0,
      };
      expect(created.body.data.delivery).toEqual(well);
      expect((await call(u, "GET", `/v1/alert-channels/${id}`)).body.data.delivery).toEqual(well);

      // Two alerts queued while the notifier has found the receiver away (as deliver.ts records it).
      const monitor = await createMonitor(u);
      const policy = await call(u, "POST", "/v1/alert-policies", {
        name: "p",
        monitor_id: monitor,
        channel_ids: [id],
      });
      expect(policy.status, policy.text).toBe(201);
      const k = t.db.kysely;
      for (const [i, [from, to]] of [
        ["up", "down"],
        ["down", "up"],
      ].entries())
        await k
          .insertInto("monitor_state_changes")
          .values({
            id: `msc_view_${form}_${kind}_${i}`,
            monitor_id: monitor,
            slot: new Date(Date.now() + i),
            from_state: from as "up",
            to_state: to as "down",
          })
          .execute();
      await makeEvents(k);
      const since = new Date("2026-11-26T10:00:00.000Z");
      const next = new Date("2026-11-26T10:00:04.000Z");
      await k
        .updateTable("alert_channels")
        .set({
          failing_since: since,
          failures: 3,
          retry_at: next,
          last_error: "HTTP 503: busy",
          last_error_at: since,
        })
        .where("id", "=", id)
        .execute();
      const failing = {
        failing: true,
        failing_since: since.toISOString(),
        next_attempt_at: next.toISOString(),
        last_error: "HTTP 503: busy",
        last_error_at: since.toISOString(),
        queued: 2,
      };
      expect((await call(u, "GET", `/v1/alert-channels/${id}`)).body.data.delivery).toEqual(failing);
      const list = await call(u, "GET", "/v1/alert-channels");
      expect(list.body.data.items.find((c: { id: string }) => c.id === id).delivery).toEqual(failing);

      // Recovered: not failing, nothing next; the last error stays for the record.
      await k
        .updateTable("alert_channels")
        .set({ failing_since: null, failures: 0, retry_at: null })
        .where("id", "=", id)
        .execute();
      await k.updateTable("alert_deliveries").set({ status: "sent" }).where("channel_id", "=", id).execute();
      expect((await call(u, "GET", `/v1/alert-channels/${id}`)).body.data.delivery).toEqual({
        ...well,
        last_error: "HTTP 503: busy",
        last_error_at: since.toISOString(),
      });
    });

    it("PATCH merges settings: the mask keeps a secret, a value replaces it, null removes an optional one", async () => {
      const ch = (await createChannel(alice, "dingtalk")).body.data;
      const original = configs.dingtalk!.config;
      const patch = (body: unknown) => call(alice, "PATCH", `/v1/alert-channels/${ch.id}`, body);

      // A channel read sent back as it is changes nothing.
      const same = await patch({ name: "renamed", config: ch.config });
      expect(same.status, same.text).toBe(200);
      expect(same.body.data).toMatchObject({ id: ch.id, name: "renamed", config: maskedOf("dingtalk") });
      expect(openRow(await channelRow(ch.id))).toEqual(original);

      const cleared = await patch({ config: { secret: null } });
      expect(cleared.status, cleared.text).toBe(200);
      expect(cleared.body.data.config).toEqual({ webhook_url: SECRET_MASK });
      expect(openRow(await channelRow(ch.id))).toEqual({ webhook_url: original.webhook_url });

      // The mask of a secret that is not stored keeps nothing: 400.
      const nothingToKeep = await patch({ config: { secret: SECRET_MASK } });
      expect(nothingToKeep.status).toBe(400);
      expect(nothingToKeep.body.error.details[0].path).toBe("body.config.secret");

      const replaced = await patch({ config: { secret: "SECnewSigningSecret", webhook_url: SECRET_MASK } });
      expect(replaced.status, replaced.text).toBe(200);
      expect(replaced.text).not.toContain("SECnewSigningSecret");
      expect(replaced.body.data.config).toEqual(maskedOf("dingtalk"));
      expect(openRow(await channelRow(ch.id))).toEqual({
        webhook_url: original.webhook_url,
        secret: "SECnewSigningSecret",
      });

      // A plain setting changes beside the sealed ones.
      const hook = (await createChannel(alice, "webhook")).body.data;
      const moved = await call(alice, "PATCH", `/v1/alert-channels/${hook.id}`, {
        config: { url: "https://elsewhere.example.com/hook" },
      });
      expect(moved.body.data.config).toEqual({
        url: "https://elsewhere.example.com/hook",
        secret: SECRET_MASK,
      });
      const row = await channelRow(hook.id);
      expect(row.config).toEqual({ url: "https://elsewhere.example.com/hook" });
      expect(openRow(row)).toEqual({ secret: whsec });

      const bad: [unknown, string, string][] = [
        [{ type: "slack" }, "unknown_field", "body.type"],
        [
          { config: { webhook_url: "https://example.com/nope" } },
          "validation_error",
          "body.config.webhook_url",
        ],
        [{ config: { webhook_url: null } }, "validation_error", "body.config.webhook_url"],
        [{ config: { colour: "red" } }, "unknown_field", "body.config.colour"],
        [{ config: { colour: null } }, "unknown_field", "body.config.colour"],
        [{ name: " " }, "validation_error", "body.name"],
      ];
      for (const [body, code, path] of bad) {
        const res = await patch(body);
        expect(res.status, JSON.stringify(body)).toBe(400);
        expect(res.body.error).toMatchObject({ code, details: [expect.objectContaining({ path })] });
      }
      expect(openRow(await channelRow(ch.id))).toEqual({
        webhook_url: original.webhook_url,
        secret: "SECnewSigningSecret",
      });
    });

    it("refuses bad settings with 400 and the path, never echoing a secret", async () => {
      const cases: [string, Record<string, unknown>, string, string?][] = [
        ["email without config", { type: "email" }, "body.config.to"],
        ["bad address", { type: "email", config: { to: ["not-an-address"] } }, "body.config.to.0"],
        [
          "webhook ftp url",
          { type: "webhook", config: { url: "ftp://x.example/", secret: whsec } },
          "body.config.url",
        ],
        [
          "short webhook secret",
          { type: "webhook", config: { url: "https://x.example/", secret: "whsec_c2hvcnRTZWNyZXQ=" } },
          "body.config.secret",
        ],
        ["slack without url", { type: "slack", config: {} }, "body.config.webhook_url"],
        [
          "dingtalk url",
          { type: "dingtalk", config: { webhook_url: "https://oapi.dingtalk.com/robot/send" } },
          "body.config.webhook_url",
        ],
        [
          "pagerduty severity",
          { type: "pagerduty", config: { routing_key: "k".repeat(32), severity: "fatal" } },
          "body.config.severity",
        ],
        ["sms number", { type: "sms", config: { ...configs.sms!.config, to: ["0155"] } }, "body.config.to.0"],
        [
          "unknown key",
          { type: "slack", config: { ...configs.slack!.config, colour: "red" } },
          "body.config.colour",
          "unknown_field",
        ],
        [
          "the mask as a secret",
          { type: "sms", config: { ...configs.sms!.config, auth_token: SECRET_MASK } },
          "body.config.auth_token",
        ],
        ["unknown type", { type: "telegram", config: {} }, "body.type"],
        ["config not an object", { type: "slack", config: "https://hooks.slack.com/x" }, "body.config"],
        ["long name", { type: "email", name: "n".repeat(101), config: configs.email!.config }, "body.name"],
        [
          "unknown field",
          { type: "email", config: configs.email!.config, colour: "red" },
          "body.colour",
          "unknown_field",
        ],
      ];
      for (const [what, body, path, code] of cases) {
        const res = await call(alice, "POST", "/v1/alert-channels", { name: "x", ...body });
        expect(res.status, `${what}: ${res.text}`).toBe(400);
        expect(res.body.error.code, what).toBe(code ?? "validation_error");
        expect(res.body.error.details[0].path, what).toBe(path);
      }
      const leaky = await call(alice, "POST", "/v1/alert-channels", {
        name: "x",
        type: "pagerduty",
        config: { routing_key: "tooShortSecretKey42" },
      });
      expect(leaky.status).toBe(400);
      expect(leaky.text).not.toContain("tooShortSecretKey42");
    });

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

    it("the test endpoint answers the outcome as data", async () => {
      const u = await newUser(t);
      await markVerified(t, u.userId);
      const hook = await call(u, "POST", "/v1/alert-channels", {
        name: "local",
        type: "webhook",
        config: { url: "http://127.0.0.1:9/hook", secret: whsec },
      });
      const res = await call(u, "POST", `/v1/alert-channels/${hook.body.data.id}/test`);
      expect(res.status, res.text).toBe(200);
      const outcome = res.body.data;
      expect(typeof outcome.ok).toBe("boolean");
      expect(outcome.status === null || Number.isInteger(outcome.status)).toBe(true);
      expect(outcome.ok ? outcome.reason === null : typeof outcome.reason === "string").toBe(true);
      for (const k of Object.keys(outcome)) expect(["ok", "status", "reason", "attempts"]).toContain(k);
      expect(res.text).not.toContain(whsec);
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

  describe("the service without a key, or with another one", () => {
    it("without VANTAGE_SECRET_KEY: channels with secrets → 503, those without are stored", async () => {
      const t = db.app("b");
      const u = await newUser(t);
      const api = createAlertsService({
        db: t.db.kysely,
        log: silent,
        plans: defaultPlans,
        box: undefined,
        sendTest: async () => null,
      });
      const owner = { userId: u.userId };
      const refused = api.createChannel(owner, { name: "s", type: "slack", config: configs.slack!.config });
      await expect(refused).rejects.toMatchObject({
        code: "unavailable",
        message: "VANTAGE_SECRET_KEY is not set: channels with secrets cannot be stored",
      });
      const mail = await api.createChannel(owner, {
        name: "m",
        type: "email",
        config: configs.email!.config,
      });
      expect(mail.config).toEqual(configs.email!.config);
      expect((await api.listChannels(owner, { page: 1, limit: 10 })).total).toBe(1);

      // A channel sealed elsewhere: reads mask every secret setting, renames work, setting changes → 503.
      const box = createSecretBox({ current: SecretKey.generate(), previous: [] });
      const keyed = createAlertsService({
        db: t.db.kysely,
        log: silent,
        plans: defaultPlans,
        box,
        sendTest: async () => null,
      });
      const ding = await keyed.createChannel(owner, {
        name: "d",
        type: "dingtalk",
        config: configs.dingtalk!.config,
      });
      expect((await api.getChannel(owner, ding.id)).config).toEqual(maskedOf("dingtalk"));
      expect((await api.updateChannel(owner, ding.id, { name: "renamed" })).name).toBe("renamed");
      await expect(api.updateChannel(owner, ding.id, { config: { secret: null } })).rejects.toMatchObject({
        code: "unavailable",
      });
      // A test send the sender no longer finds is a 404.
      await expect(api.testChannel(owner, ding.id)).rejects.toMatchObject({ code: "not_found" });

      // Under another key the secrets do not open: a change needing them → 409, resending them all works.
      const other = createAlertsService({
        db: t.db.kysely,
        log: silent,
        plans: defaultPlans,
        box: createSecretBox({ current: SecretKey.generate(), previous: [] }),
        sendTest: async () => null,
      });
      expect((await other.getChannel(owner, ding.id)).config).toEqual(maskedOf("dingtalk"));
      await expect(other.updateChannel(owner, ding.id, { config: { secret: null } })).rejects.toMatchObject({
        code: "conflict",
      });
      const resent = await other.updateChannel(owner, ding.id, {
        config: { webhook_url: configs.dingtalk!.config.webhook_url, secret: "SECresent" },
      });
      expect(resent.config).toEqual(maskedOf("dingtalk"));
    });
  });
});
