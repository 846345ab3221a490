import {
  connect,
  errors,
  type NatsConnection,
  nkeyAuthenticator,
  type Status,
} from "@nats-io/transport-node";
import { subjects } from "@vantage/protocol";
import {
  type Credentials,
  createAgentCredentials,
  createControllerCredentials,
  type NatsServer,
  startNatsServer,
} from "@vantage/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  authorizationProbeSubject,
  checkAuthorizationEnforced,
  isAuthorizationProbeRefusal,
} from "./authorization.js";

/**
 * The start-up check against real nats-server processes: one with per-agent nkey users (what
 * deploy/nats/nats-server.conf gives) and one without authorization (Debian's packaged default).
 */
const creds = {
  agent: createAgentCredentials("node-a"),
  controller: createControllerCredentials(),
};
let secured: NatsServer;
let open: NatsServer;
const conns: NatsConnection[] = [];

async function dial(server: NatsServer, c?: Credentials): Promise<NatsConnection> {
  const nc = await connect({
    servers: server.url,
    reconnect: false,
    ...(c ? { authenticator: nkeyAuthenticator(new TextEncoder().encode(c.seed)) } : {}),
  });
  conns.push(nc);
  return nc;
}

function statusLog(nc: NatsConnection): Status[] {
  const seen: Status[] = [];
  void (async () => {
    for await (const s of nc.status()) seen.push(s);
  })();
  return seen;
}

beforeAll(async () => {
  [secured, open] = await Promise.all([
    startNatsServer({ users: [creds.agent.user, creds.controller.user] }),
    startNatsServer(),
  ]);
});

afterAll(async () => {
  for (const nc of conns) if (!nc.isClosed()) await nc.close();
  await Promise.all([secured?.stop(), open?.stop()]);
});

describe("checkAuthorizationEnforced", () => {
  it("the default probe subject is another node's job subject that no real node can have", () => {
    const subject = authorizationProbeSubject();
    expect(subject).toMatch(/^probe\.v1\.node\._authz-check-[0-9a-f]{12}\.job$/);
    expect(authorizationProbeSubject()).not.toBe(subject);
  });

  it("an agent's credentials on a server with permissions: enforced, and the connection stays up", async () => {
    const nc = await dial(secured, creds.agent);
    const seen = statusLog(nc);
    const started = Date.now();
    const check = await checkAuthorizationEnforced(nc);
    expect(Date.now() - started).toBeLessThan(2000);
    expect(check).toMatchObject({ enforced: true, conclusive: true });
    expect(check.detail).toContain("Permissions Violation");
    expect(nc.isClosed()).toBe(false);
    // The refusal also shows as a status event, which a caller can recognise as the check's own.
    await expect.poll(() => seen.some((s) => s.type === "error")).toBe(true);
    const refusal = seen.find((s) => s.type === "error");
    expect(refusal?.type === "error" && isAuthorizationProbeRefusal(refusal.error, check.subject)).toBe(true);
    expect(
      refusal?.type === "error" && isAuthorizationProbeRefusal(refusal.error, subjects.job("node-b")),
    ).toBe(false);
    // The connection still does what it may: a second check works the same.
    expect(await checkAuthorizationEnforced(nc)).toMatchObject({ enforced: true, conclusive: true });
  });

  it("the controller's credentials on a server with permissions: enforced", async () => {
    const nc = await dial(secured, creds.controller);
    const check = await checkAuthorizationEnforced(nc);
    expect(check).toMatchObject({ enforced: true, conclusive: true });
    expect(nc.isClosed()).toBe(false);
  });

  it("a subject the credentials may use is reported as accepted (credentials too broad look open)", async () => {
    const nc = await dial(secured, creds.agent);
    const check = await checkAuthorizationEnforced(nc, { probeSubject: subjects.job("node-a") });
    expect(check).toMatchObject({ enforced: false, conclusive: true, subject: subjects.job("node-a") });
    expect(check.detail).toContain("accepted");
  });

  it("a server without authorization: not enforced, conclusive, within one round trip, and cleaned up", async () => {
    const nc = await dial(open);
    const started = Date.now();
    const check = await checkAuthorizationEnforced(nc);
    expect(Date.now() - started).toBeLessThan(1000);
    expect(check).toMatchObject({ enforced: false, conclusive: true });
    expect(check.detail).toContain(`accepted a subscription to ${check.subject}`);
    // The probe subscription is gone: a request on its subject finds nobody.
    const other = await dial(open);
    const err = await other.request(check.subject, new Uint8Array(), { timeout: 2000 }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err instanceof errors.RequestError && err.isNoResponders(), String(err)).toBe(true);
  });

  it("never throws: a closed connection is inconclusive", async () => {
    const nc = await dial(open);
    await nc.close();
    expect(await checkAuthorizationEnforced(nc)).toMatchObject({ enforced: false, conclusive: false });
  });
});
