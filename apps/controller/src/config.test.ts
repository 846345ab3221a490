import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { ConfigError, configSchema, loadConfig } from "./config.js";
import { SecretKey } from "./lib/secret-box.js";

describe("configuration", () => {
  it("has working defaults with an empty environment", () => {
    const c = loadConfig({});
    expect(c.HOST).toBe("127.0.0.1");
    expect(c.PORT).toBe(8080);
    expect(c.VANTAGE_API_FORM).toBe("b");
    expect(c.DATABASE_URL).toBeUndefined();
    expect(c.VANTAGE_DATA_DIR).toBe("./.vantage");
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

  it("every variable is documented in the README's configuration table", () => {
    const readme = readFileSync(new URL("../../../README.md", import.meta.url), "utf8");
    for (const name of Object.keys(configSchema.shape)) {
      expect(readme, `README lacks ${name}`).toMatch(new RegExp(`\\|\\s*\`${name}\`\\s*\\|`));
    }
  });
});
