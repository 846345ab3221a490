import { describe, expect, it } from "vitest";
import { renderAgentEnv } from "./agent-env.js";
import { createAgentCredentials, createControllerCredentials } from "./credentials.js";
import { agentKey, parseUsers, removeUser, renderUsers, type UsersEntry, upsertUser } from "./users-file.js";

describe("users file", () => {
  const ctl: UsersEntry = { key: "controller", user: createControllerCredentials().user };
  const a: UsersEntry = { key: agentKey("a"), user: createAgentCredentials("a").user };

  it("round-trips through render and parse", () => {
    const text = renderUsers([ctl, a]);
    expect(text).toMatch(/^users: \[$/m);
    expect(text).toContain(`# vantage:agent:a`);
    expect(parseUsers(text)).toEqual([ctl, a]);
    expect(parseUsers(renderUsers([]))).toEqual([]);
  });

  it("adds, refuses a second key for the same node unless rotating, and removes", () => {
    const a2: UsersEntry = { key: agentKey("a"), user: createAgentCredentials("a").user };
    const entries = upsertUser([ctl], a, { replace: false });
    expect(entries).toEqual([ctl, a]);
    expect(() => upsertUser(entries, a2, { replace: false })).toThrow(/--rotate/);
    expect(upsertUser(entries, a2, { replace: true })).toEqual([ctl, a2]);
    expect(removeUser(entries, agentKey("a"))).toEqual([ctl]);
    expect(() => renderUsers([a, a2])).toThrow(/duplicate/);
  });

  it("refuses a file it did not write, naming the line", () => {
    expect(() => parseUsers('users: [\n  { user: "bob", password: "x" }\n]\n')).toThrow(/line 2/);
  });

  it("renders the agent environment, leaving unknown values to fill in", () => {
    const env = renderAgentEnv({
      nodeId: "fra-1",
      country: "de",
      region: "eu-central",
      natsUrl: "tls://nats.example.net:4222",
      seedFile: "/etc/vantage/agent.nk",
    });
    expect(env.split("\n")).toEqual([
      "VANTAGE_NODE_ID=fra-1",
      "VANTAGE_NODE_NAME=fra-1",
      "VANTAGE_NODE_COUNTRY=DE",
      "VANTAGE_NODE_REGION=eu-central",
      "# VANTAGE_NODE_PROVIDER=   (required: e.g. hetzner)",
      "VANTAGE_NODE_PROVIDER=",
      "NATS_URL=tls://nats.example.net:4222",
      "NATS_NKEY_SEED_FILE=/etc/vantage/agent.nk",
      "",
    ]);
    expect(() => renderAgentEnv({ nodeId: "x", country: "DEU", natsUrl: "n", seedFile: "s" })).toThrow(
      /country/,
    );
    expect(() => renderAgentEnv({ nodeId: "x", name: 'a"b', natsUrl: "n", seedFile: "s" })).toThrow(/quotes/);
  });
});
