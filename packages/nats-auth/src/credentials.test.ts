import { fromPublic, fromSeed } from "@nats-io/nkeys";
import { describe, expect, it } from "vitest";
import {
  agentPermissions,
  controllerPermissions,
  createAgentCredentials,
  createControllerCredentials,
} from "./credentials.js";

describe("NATS credentials", () => {
  it("creates an agent user limited to its own job and heartbeat subjects", () => {
    const c = createAgentCredentials("fra-1");
    expect(c.seed).toMatch(/^SU[A-Z2-7]{56}$/);
    expect(c.publicKey).toMatch(/^U[A-Z2-7]{55}$/);
    expect(fromSeed(new TextEncoder().encode(c.seed)).getPublicKey()).toBe(c.publicKey);
    expect(c.user).toEqual({
      nkey: c.publicKey,
      permissions: {
        publish: { allow: ["probe.v1.node.fra-1.hb"] },
        subscribe: { allow: ["probe.v1.node.fra-1.job"] },
        allow_responses: { max: 1000, expires: "2m" },
      },
    });
    // a signature made with the seed verifies against the public key the server stores
    const nonce = new TextEncoder().encode("nonce");
    const sig = fromSeed(new TextEncoder().encode(c.seed)).sign(nonce);
    expect(fromPublic(c.publicKey).verify(nonce, sig)).toBe(true);
  });

  it("never creates the same key twice", () => {
    expect(createAgentCredentials("a").seed).not.toBe(createAgentCredentials("a").seed);
  });

  it("refuses node ids that are not one subject token", () => {
    for (const bad of ["", "a.b", "*", ">", "A", "-a", "a b", "x".repeat(64)]) {
      expect(() => agentPermissions(bad), bad).toThrow(/invalid node id/);
    }
  });

  it("creates a controller user that sends jobs, hears heartbeats and replies, and keeps the results log", () => {
    const c = createControllerCredentials();
    expect(c.user.permissions).toEqual({
      publish: {
        allow: [
          "probe.v1.node.*.job",
          "vantage.results.v1.*",
          "$JS.API.STREAM.CREATE.VANTAGE_RESULTS",
          "$JS.API.STREAM.UPDATE.VANTAGE_RESULTS",
          "$JS.API.STREAM.INFO.VANTAGE_RESULTS",
          "$JS.API.STREAM.PURGE.VANTAGE_RESULTS",
          "$JS.API.STREAM.MSG.GET.VANTAGE_RESULTS",
        ],
      },
      subscribe: { allow: ["probe.v1.node.*.hb", "_INBOX.>"] },
    });
    expect(controllerPermissions({ inboxPrefix: "_INBOX_ctl" }).subscribe?.allow).toContain("_INBOX_ctl.>");
    expect(() => controllerPermissions({ inboxPrefix: "a.>" })).toThrow(/inbox prefix/);
  });
});
