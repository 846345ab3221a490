import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { ConfigError, configSchema, loadConfig } from "./config.js";

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

  it("every variable is documented in the README's configuration table", () => {
    const readme = readFileSync(new URL("../../../README.md", import.meta.url), "utf8");
    for (const name of Object.keys(configSchema.shape)) {
      expect(readme, `README lacks ${name}`).toMatch(new RegExp(`\\|\\s*\`${name}\`\\s*\\|`));
    }
  });
});
