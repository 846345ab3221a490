import { pino } from "pino";
import { Webhook } from "standardwebhooks";
import { beforeAll, describe, expect, it } from "vitest";
import { defaultPlans } from "../../lib/plans.js";
import { createSecretBox, SecretKey } from "../../lib/secret-box.js";
import { newUser } from "../../testing/accounts.js";
import { dbKinds, forms, planLimitsEnv, type TestApp } from "../../testing/test-app.js";
import { useTestDb } from "../../testing/use-test-db.js";
import { webhookChannel } from "./channels/webhook.js";
import { createAlertsService } from "./service.js";
import { alertsApiHelpers, configs, maskedOf, rowText, secretValues, whsec } from "./testing/alerts-api.js";
import { SECRET_MASK } from "./types.js";

const silent = pino({ level: "silent" });

/**
 * Alert channels' secrets through the API: the 8 types created, their secrets masked in every answer and
 * sealed in the row; a webhook's generated signing secret; and the service without a key, or with another
 * one.
 */
describe.each(dbKinds)("alerts API: channels on %s", (kind) => {
  const db = useTestDb(kind);

  describe.each(forms)("form %s", (form) => {
    const sizeKey = form === "a" ? "limit" : "per_page";
    let t: TestApp;
    beforeAll(() => {
      t = db.app(form, { VANTAGE_PLAN_LIMITS: planLimitsEnv({ free: { alert_channels: 50 } }) });
    });
    const { call, createChannel, channelRow, openRow } = alertsApiHelpers(() => t, form);

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
        allowPrivate: false,
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
        allowPrivate: false,
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
        allowPrivate: false,
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
