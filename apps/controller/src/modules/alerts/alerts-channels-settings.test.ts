import { beforeAll, describe, expect, it } from "vitest";
import { newUser, type TestUser } from "../../testing/accounts.js";
import { dbKinds, forms, planLimitsEnv, type TestApp } from "../../testing/test-app.js";
import { useTestDb } from "../../testing/use-test-db.js";
import { alertsApiHelpers, configs, maskedOf, whsec } from "./testing/alerts-api.js";
import { SECRET_MASK } from "./types.js";

/**
 * Alert channels' settings through the API: PATCH merges them (the mask keeps a secret, a value replaces it,
 * null removes an optional one), and bad settings are refused with 400 and the path, never echoing a secret.
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
    const { call, createChannel, channelRow, openRow } = alertsApiHelpers(() => t, form);

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

    it("a URL written with a private address is refused when the channel is made or changed (422); a name is kept", async () => {
      for (const [url, host] of [
        ["http://10.0.0.7/hook", "10.0.0.7"],
        ["http://[::1]:8080/hook", "::1"],
        ["http://0x7f.1/hook", "127.0.0.1"],
        ["https://localhost/hook", "localhost"],
        ["http://169.254.169.254/latest", "169.254.169.254"],
      ]) {
        const res = await call(alice, "POST", "/v1/alert-channels", {
          name: "inside",
          type: "webhook",
          config: { url, secret: whsec },
        });
        expect(res.status, url).toBe(422);
        expect(res.body.error.code).toBe("target_not_allowed");
        expect(res.body.error.message).toBe(`body.config.url: ${host} is not a public address`);
        expect(res.body.error.details[0].path).toBe("body.config.url");
      }
      // A name is checked when sending (the address it has then): stored.
      const named = await call(alice, "POST", "/v1/alert-channels", {
        name: "named",
        type: "webhook",
        config: { url: "https://hooks.internal.example/hook", secret: whsec },
      });
      expect(named.status, named.text).toBe(201);
      const moved = await call(alice, "PATCH", `/v1/alert-channels/${named.body.data.id}`, {
        config: { url: "http://192.168.1.20/hook" },
      });
      expect(moved.status).toBe(422);
      expect(moved.body.error.details[0].path).toBe("body.config.url");
      const kept = await call(alice, "GET", `/v1/alert-channels/${named.body.data.id}`);
      expect(kept.body.data.config.url).toBe("https://hooks.internal.example/hook");
    });
  });
});
