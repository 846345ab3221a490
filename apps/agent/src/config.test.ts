import { spawnSync } from "node:child_process";
import { appArgs } from "@vantage/testing";
import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "./config.js";

const base = {
  VANTAGE_NODE_ID: "fra-1",
  VANTAGE_NODE_COUNTRY: "de",
  VANTAGE_NODE_REGION: "eu-central",
  VANTAGE_NODE_PROVIDER: "hetzner",
  NATS_URL: "nats://127.0.0.1:4222",
};

function errorOf(env: Record<string, string>): string {
  try {
    loadConfig(env);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as Error).message;
  }
  throw new Error("expected a ConfigError");
}

describe("agent config", () => {
  it("reads the node's network and tags for location selectors", () => {
    const c = loadConfig({
      ...base,
      VANTAGE_NODE_ASN: "AS13335",
      VANTAGE_NODE_TAGS: " eyeball, home ,eyeball",
    });
    expect(c.VANTAGE_NODE_ASN).toBe(13335);
    expect(c.VANTAGE_NODE_TAGS).toEqual(["eyeball", "home"]);
    expect(loadConfig({ ...base, VANTAGE_NODE_ASN: "64500" }).VANTAGE_NODE_ASN).toBe(64500);
    expect(errorOf({ ...base, VANTAGE_NODE_ASN: "AS0" })).toMatch(/VANTAGE_NODE_ASN/);
    expect(errorOf({ ...base, VANTAGE_NODE_TAGS: "Eyeball" })).toMatch(/VANTAGE_NODE_TAGS/);
  });

  it("applies defaults", () => {
    expect(loadConfig(base)).toEqual({
      ...base,
      VANTAGE_NODE_NAME: "fra-1",
      VANTAGE_NODE_COUNTRY: "DE",
      VANTAGE_AGENT_CONCURRENCY: 64,
      VANTAGE_HEARTBEAT_MS: 5000,
      VANTAGE_ALLOW_PRIVATE_TARGETS: false,
      VANTAGE_ALLOW_OPEN_NATS: false,
      NATS_NO_RANDOMIZE: false,
      VANTAGE_LOG_LEVEL: "info",
    });
    expect(loadConfig({ ...base, VANTAGE_ALLOW_OPEN_NATS: "true" }).VANTAGE_ALLOW_OPEN_NATS).toBe(true);
    expect(loadConfig({ ...base, NATS_NO_RANDOMIZE: "true" }).NATS_NO_RANDOMIZE).toBe(true);
  });

  it("takes the servers of a cluster as a comma-separated list", () => {
    const servers =
      "tls://nats-1.example.net:4222, tls://nats-2.example.net:4222,tls://nats-3.example.net:4222";
    expect(loadConfig({ ...base, NATS_URL: servers }).NATS_URL).toBe(servers);
    expect(errorOf({ ...base, NATS_URL: "tls://a:4222,,tls://b:4222" })).toMatch(
      /^invalid configuration: NATS_URL=/,
    );
  });

  it("names the bad variable in one line", () => {
    expect(errorOf({ ...base, VANTAGE_NODE_ID: "Fra.1" })).toMatch(
      /^invalid configuration: VANTAGE_NODE_ID="Fra.1": /,
    );
    expect(errorOf({ ...base, VANTAGE_NODE_COUNTRY: "DEU" })).toMatch(
      /VANTAGE_NODE_COUNTRY="DEU": .*two-letter/,
    );
    expect(errorOf({ ...base, VANTAGE_AGENT_CONCURRENCY: "0" })).toMatch(
      /^invalid configuration: VANTAGE_AGENT_CONCURRENCY/,
    );
    expect(errorOf({ ...base, VANTAGE_ALLOW_PRIVATE_TARGETS: "maybe" })).toMatch(
      /VANTAGE_ALLOW_PRIVATE_TARGETS/,
    );
    expect(errorOf({ ...base, VANTAGE_ALLOW_OPEN_NATS: "please" })).toMatch(
      /^invalid configuration: VANTAGE_ALLOW_OPEN_NATS="please": /,
    );
    expect(errorOf({ ...base, NATS_NKEY_SEED_FILE: "/nonexistent/seed.nk" })).toMatch(
      /NATS_NKEY_SEED_FILE=.*not readable/,
    );
    const { NATS_URL: _, ...noUrl } = base;
    expect(errorOf(noUrl)).toMatch(/^invalid configuration: NATS_URL \(unset\)/);
  });

  it("makes the process exit 2 with that line", () => {
    const res = spawnSync(process.execPath, appArgs("agent"), {
      env: { PATH: process.env.PATH ?? "", ...base, VANTAGE_HEARTBEAT_MS: "soon" },
      encoding: "utf8",
      timeout: 20_000,
    });
    expect(res.status).toBe(2);
    expect(res.stderr.trim().split("\n")).toEqual([
      expect.stringMatching(/^invalid configuration: VANTAGE_HEARTBEAT_MS="soon": /),
      // Every exit says its code and reason last (exit-log.ts); before the logger exists, on stderr.
      "vantage-agent: agent exiting with code 2: invalid configuration",
    ]);
  });
});

describe("docs/operations.md", () => {
  it("documents every variable the agent reads", async () => {
    const { readFileSync } = await import("node:fs");
    const { configSchema } = await import("./config.js");
    const doc = readFileSync(new URL("../../../docs/operations.md", import.meta.url), "utf8");
    const missing = Object.keys(configSchema.def.in.shape).filter(
      (k) => !new RegExp(`^\\|\\s*\`${k}\`\\s*\\|`, "m").test(doc),
    );
    expect(missing).toEqual([]);
  });
});
