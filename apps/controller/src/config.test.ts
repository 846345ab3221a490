import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { ConfigError, configSchema, configSections, isSecret, loadConfig } from "./config.js";
import { maskUrlCredentials } from "./config-values.js";
import { defaultPlans } from "./lib/plans.js";
import { SecretKey } from "./lib/secret-box.js";

const readme = readFileSync(new URL("../../../README.md", import.meta.url), "utf8");

describe("configuration", () => {
  it("has working defaults with an empty environment", () => {
    const c = loadConfig({});
    expect(c.HOST).toBe("127.0.0.1");
    expect(c.PORT).toBe(8080);
    expect(c.VANTAGE_API_FORM).toBe("b");
    expect(c.DATABASE_URL).toBeUndefined();
    expect(c.VANTAGE_DATA_DIR).toBe("./.vantage");
    expect(c.VANTAGE_PGLITE_CACHE_MB).toBe(32);
    expect(c.VANTAGE_ROLES).toEqual(["api", "scheduler", "notifier", "presence"]);
    expect(c.VANTAGE_ALLOW_PRIVATE_TARGETS).toBe(false);
  });

  it("treats empty strings as unset", () => {
    expect(loadConfig({ PORT: "", DATABASE_URL: "" }).PORT).toBe(8080);
  });

  it.each([
    ["PORT", "99999"],
    ["VANTAGE_API_FORM", "c"],
    ["DATABASE_URL", "mysql://x"],
    ["VANTAGE_ROLES", "api,cooking"],
    ["VANTAGE_ALLOW_PRIVATE_TARGETS", "maybe"],
    ["VANTAGE_PGLITE_CACHE_MB", "8"],
    ["VANTAGE_PGLITE_CACHE_MB", "lots"],
  ])("rejects %s=%s with a message naming the variable", (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: value })).toThrow(new RegExp(`^invalid configuration: ${name}=`));
  });

  it("VANTAGE_METRICS_LISTEN is host:port (IPv6 in brackets); VANTAGE_METRICS_TOKEN is long enough", () => {
    expect(loadConfig({}).VANTAGE_METRICS_LISTEN).toBeUndefined();
    expect(loadConfig({ VANTAGE_METRICS_LISTEN: "127.0.0.1:9464" }).VANTAGE_METRICS_LISTEN).toEqual({
      host: "127.0.0.1",
      port: 9464,
    });
    expect(loadConfig({ VANTAGE_METRICS_LISTEN: "[::1]:0" }).VANTAGE_METRICS_LISTEN).toEqual({
      host: "::1",
      port: 0,
    });
    expect(loadConfig({ VANTAGE_METRICS_LISTEN: "metrics.internal:9100" }).VANTAGE_METRICS_LISTEN).toEqual({
      host: "metrics.internal",
      port: 9100,
    });
    for (const bad of ["9464", "127.0.0.1", "127.0.0.1:", ":9464", "::1:9464", "127.0.0.1:70000", "a b:1"]) {
      expect(() => loadConfig({ VANTAGE_METRICS_LISTEN: bad }), bad).toThrow(
        /^invalid configuration: VANTAGE_METRICS_LISTEN=.*must be host:port/,
      );
    }
    const token = "0123456789abcdef0123";
    expect(loadConfig({ VANTAGE_METRICS_TOKEN: token }).VANTAGE_METRICS_TOKEN).toBe(token);
    expect(() => loadConfig({ VANTAGE_METRICS_TOKEN: "short" })).toThrow(
      /VANTAGE_METRICS_TOKEN=.*at least 16/,
    );
    expect(() => loadConfig({ VANTAGE_METRICS_TOKEN: "with a space 0123456789" })).toThrow(
      /VANTAGE_METRICS_TOKEN=.*printable ASCII/,
    );
  });

  it("VANTAGE_SECRET_KEY is 32 bytes (base64 or hex); VANTAGE_SECRET_KEYS_PREVIOUS a comma list of them", () => {
    expect(loadConfig({}).VANTAGE_SECRET_KEY).toBeUndefined();
    expect(loadConfig({}).VANTAGE_SECRET_KEYS_PREVIOUS).toEqual([]);
    const [a, b] = [SecretKey.generate(), SecretKey.generate()];
    const hexB = Buffer.from(b.toBase64(), "base64").toString("hex");
    expect(loadConfig({ VANTAGE_SECRET_KEY: a.toBase64() }).VANTAGE_SECRET_KEY?.id).toBe(a.id);
    expect(loadConfig({ VANTAGE_SECRET_KEY: hexB }).VANTAGE_SECRET_KEY?.id).toBe(b.id);
    expect(
      loadConfig({
        VANTAGE_SECRET_KEYS_PREVIOUS: ` ${a.toBase64()} , ${hexB},`,
      }).VANTAGE_SECRET_KEYS_PREVIOUS.map((k) => k.id),
    ).toEqual([a.id, b.id]);

    const passphrase = "my very secret passphrase honestly";
    for (const [name, value, message] of [
      ["VANTAGE_SECRET_KEY", passphrase, /not a passphrase: make one with `openssl rand -base64 32`/],
      ["VANTAGE_SECRET_KEY", `${a.toBase64()},${b.toBase64()}`, /32 random bytes/],
      [
        "VANTAGE_SECRET_KEY",
        Buffer.from("32 characters of plain old text!").toString("base64"),
        /passphrase/,
      ],
      ["VANTAGE_SECRET_KEYS_PREVIOUS", `${a.toBase64()},${passphrase}`, /key 2 of 2: .*openssl rand/],
    ] as const) {
      expect(() => loadConfig({ [name]: value }), value).toThrow(ConfigError);
      expect(() => loadConfig({ [name]: value }), value).toThrow(message);
      // The value itself is never repeated: a near-miss key or a passphrase stays out of logs.
      let thrown = "";
      try {
        loadConfig({ [name]: value });
      } catch (err) {
        thrown = (err as Error).message;
      }
      expect(thrown).toMatch(
        new RegExp(`^invalid configuration: ${name}=\\(\\d+ characters, not shown\\): `),
      );
      expect(thrown).not.toContain(value);
      expect(thrown).not.toContain(a.toBase64());
    }
  });

  it("is marked secret on every variable that holds a credential or may carry a password", () => {
    const secrets = Object.keys(configSchema.shape).filter(isSecret);
    expect(secrets.sort()).toEqual(
      [
        "DATABASE_URL",
        "NATS_URL",
        "SMTP_URL",
        "STRIPE_SECRET_KEY",
        "STRIPE_WEBHOOK_SECRET",
        "VANTAGE_ICP_PROVIDER_KEY",
        "VANTAGE_JWT_SECRET",
        "VANTAGE_METRICS_TOKEN",
        "VANTAGE_SECRET_KEY",
        "VANTAGE_SECRET_KEYS_PREVIOUS",
      ].sort(),
    );
    // A new variable named like a credential is caught here even if its author forgot `secret()`.
    for (const name of Object.keys(configSchema.shape)) {
      if (/SECRET|TOKEN|PASSWORD|_KEYS?(_|$)/.test(name)) expect(isSecret(name), name).toBe(true);
    }
  });

  it("masks the credentials of server URLs before they are logged (NATS_URL)", () => {
    expect(maskUrlCredentials("nats://app:s3cret@10.0.0.5:4222,nats://10.0.0.6:4222")).toBe(
      "nats://***@10.0.0.5:4222,nats://10.0.0.6:4222",
    );
    expect(maskUrlCredentials("tls://token-abc@nats.internal, nats://u:p@[2001:db8::1]:4222")).toBe(
      "tls://***@nats.internal, nats://***@[2001:db8::1]:4222",
    );
    expect(maskUrlCredentials("user:pw@127.0.0.1:4222")).toBe("***@127.0.0.1:4222");
    expect(maskUrlCredentials("nats://127.0.0.1:4222")).toBe("nats://127.0.0.1:4222");
  });

  // One bad value per secret variable, each chosen to fail that variable's own check.
  it.each([
    ["DATABASE_URL", "postgres://vantage:hunter2 hunter2@db.internal/vantage"],
    ["DATABASE_URL", "mysql://vantage:hunter2-hunter2@db.internal/vantage"],
    ["SMTP_URL", "smtp:/mailer:hunter2-hunter2@mail.internal:587"],
    ["SMTP_URL", "smtps://mailer:hunter2 hunter2@mail.internal"],
    ["VANTAGE_JWT_SECRET", "hunter2-but-too-short"],
    ["VANTAGE_METRICS_TOKEN", "hunter2 hunter2 hunter2"],
    ["VANTAGE_ICP_PROVIDER_KEY", "hunter2 hunter2"],
    ["VANTAGE_SECRET_KEY", "hunter2-a-passphrase-not-a-key"],
    ["VANTAGE_SECRET_KEYS_PREVIOUS", "hunter2-a-passphrase-not-a-key"],
    ["STRIPE_SECRET_KEY", "pk_live_hunter2hunter2"],
    ["STRIPE_WEBHOOK_SECRET", "hunter2hunter2"],
  ])("refuses a bad %s without repeating it", (name, value) => {
    let thrown: unknown;
    try {
      loadConfig({ [name]: value });
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(ConfigError);
    const message = (thrown as Error).message;
    expect(message).toMatch(
      new RegExp(`^invalid configuration: ${name}=\\(${value.length} characters, not shown\\): .+`),
    );
    expect(message).not.toContain(value.trim());
    expect(message).not.toContain("hunter2");
  });

  it("refuses the DATABASE_URL of issue #32 (a space in the password) without the password", () => {
    const value = "postgres://u:pa ss@h/db";
    expect(() => loadConfig({ DATABASE_URL: value })).toThrow(
      /^invalid configuration: DATABASE_URL=\(23 characters, not shown\): must be a postgres:\/\/ URL/,
    );
    expect(() => loadConfig({ DATABASE_URL: value })).not.toThrow(/pa ss|pa%20ss/);
    expect(loadConfig({ DATABASE_URL: "postgres://u:pa%20ss@h/db" }).DATABASE_URL).toBe(
      "postgres://u:pa%20ss@h/db",
    );
  });

  it("still shows a bad value that is not a secret", () => {
    expect(() => loadConfig({ PORT: "99999" })).toThrow(/^invalid configuration: PORT="99999": /);
  });

  it("VANTAGE_PLAN_LIMITS is always the whole plan table: the defaults unless it changes some", () => {
    expect(loadConfig({}).VANTAGE_PLAN_LIMITS).toBe(defaultPlans);
    const changed = loadConfig({ VANTAGE_PLAN_LIMITS: '{"free":{"monitors":7}}' }).VANTAGE_PLAN_LIMITS;
    expect(changed.free.monitors).toBe(7);
    expect(changed.pro).toEqual(defaultPlans.pro);
  });

  it("every variable is in exactly one section", () => {
    const names = configSections.flatMap((s) => Object.keys(s.variables));
    expect(names.sort()).toEqual(Object.keys(configSchema.shape).sort());
    expect(new Set(names).size).toBe(names.length);
  });

  it("the README documents every variable in its section, secrets marked, and nothing else", () => {
    const start = readme.indexOf("## Configuration (controller)");
    const end = readme.indexOf("\n## ", start + 1);
    const parts = readme.slice(start, end).split(/^### /m).slice(1);
    expect(parts.map((p) => p.slice(0, p.indexOf("\n")))).toEqual(configSections.map((s) => s.title));
    for (const [i, part] of parts.entries()) {
      const section = configSections[i]!;
      const rows = [...part.matchAll(/^\| `([A-Z0-9_]+)` \| [^|]* \| (.*) \|$/gm)];
      expect(
        rows.map((r) => r[1]),
        section.title,
      ).toEqual(Object.keys(section.variables));
      for (const [, name, meaning] of rows) {
        expect(meaning!.startsWith("*secret* · "), `${name}'s row and its secret() mark agree`).toBe(
          isSecret(name!),
        );
      }
    }
  });
});
