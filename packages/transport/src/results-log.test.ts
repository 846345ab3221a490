import { connect, type NatsConnection, nkeyAuthenticator } from "@nats-io/transport-node";
import {
  type Credentials,
  createAgentCredentials,
  createControllerCredentials,
  type NatsServer,
  startNatsServer,
} from "@vantage/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openResultsLog } from "./results-log.js";

/**
 * The results write-ahead log against real nats-server processes: one with JetStream and the nkey users
 * `pnpm nats:controller-user` and `pnpm agent:add` write, one without JetStream.
 */
const creds = { controller: createControllerCredentials(), agent: createAgentCredentials("node-a") };
let withJs: NatsServer;
let withoutJs: NatsServer;
const conns: NatsConnection[] = [];

async function dial(server: NatsServer, c: Credentials): Promise<NatsConnection> {
  const nc = await connect({
    servers: server.url,
    reconnect: false,
    authenticator: nkeyAuthenticator(new TextEncoder().encode(c.seed)),
  });
  conns.push(nc);
  return nc;
}

const opts = (controllerId: string) => ({ controllerId, maxAgeMs: 3600_000, timeoutMs: 2000 });

beforeAll(async () => {
  const users = [creds.controller.user, creds.agent.user];
  [withJs, withoutJs] = await Promise.all([
    startNatsServer({ users, jetstream: true }),
    startNatsServer({ users }),
  ]);
});

afterAll(async () => {
  await Promise.all(conns.map((c) => c.close()));
  await Promise.all([withJs?.stop(), withoutJs?.stop()]);
});

describe("results log (JetStream)", () => {
  it("keeps each controller's records in order until released, for any controller to read", async () => {
    const nc = await dial(withJs, creds.controller);
    const a = await openResultsLog(nc, opts("ctl_a"));
    const b = await openResultsLog(nc, opts("ctl_b"));
    const seqs = [];
    for (const id of ["t1", "t2", "t3"]) seqs.push(await a.append({ id }));
    await b.append({ id: "u1" });
    expect(seqs).toEqual([...seqs].sort((x, y) => x - y));
    expect(Object.fromEntries(await b.writers())).toEqual({ ctl_a: 3, ctl_b: 1 });

    // Another controller reads a's records, from any sequence, in order.
    expect((await b.read("ctl_a", 0, 10)).map((r) => r.record)).toEqual([
      { id: "t1" },
      { id: "t2" },
      { id: "t3" },
    ]);
    expect((await b.read("ctl_a", seqs[1]!, 1)).map((r) => r.seq)).toEqual([seqs[1]]);

    // Released below t3: only t3 is left of a's, and b's record is untouched.
    await a.release("ctl_a", seqs[2]!);
    expect((await b.read("ctl_a", 0, 10)).map((r) => r.record)).toEqual([{ id: "t3" }]);
    await b.release("ctl_a", seqs[2]! + 1);
    expect(Object.fromEntries(await a.writers())).toEqual({ ctl_b: 1 });
  });

  it("commits the records appended while one is in flight together, and reads them back one by one", async () => {
    const nc = await dial(withJs, creds.controller);
    const log = await openResultsLog(nc, opts("ctl_g"));
    const ids = Array.from({ length: 20 }, (_, i) => `g${i}`);
    const seqs = await Promise.all(ids.map((id) => log.append({ id })));
    // The first goes alone; the other 19, appended before its ack came, go in the next message.
    expect(new Set(seqs).size).toBe(2);
    expect(seqs.slice(1).every((s) => s === seqs[1])).toBe(true);
    expect(seqs[1]).toBeGreaterThan(seqs[0]!);
    expect(Object.fromEntries(await log.writers())).toMatchObject({ ctl_g: 2 });
    expect((await log.read("ctl_g", 0, 1)).map((r) => r.record)).toEqual([{ id: "g0" }]);
    expect((await log.read("ctl_g", 0, 100)).map((r) => r.record)).toEqual(ids.map((id) => ({ id })));

    // Released below the second message: only it is left, whole.
    await log.release("ctl_g", seqs[1]!);
    expect(await log.read("ctl_g", 0, 100)).toHaveLength(19);
    await log.release("ctl_g", seqs[1]! + 1);
    expect((await log.writers()).has("ctl_g")).toBe(false);
  });

  it("opens again on an existing stream (another controller, or a restart)", async () => {
    const nc = await dial(withJs, creds.controller);
    const again = await openResultsLog(nc, { ...opts("ctl_c"), maxAgeMs: 7200_000 });
    expect(await again.append({ id: "v1" })).toBeGreaterThan(0);
  });

  it("is refused to an agent's user, which may not touch the stream", async () => {
    const nc = await dial(withJs, creds.agent);
    await expect(openResultsLog(nc, { ...opts("ctl_x"), timeoutMs: 500 })).rejects.toThrow();
  });
});

describe("results log without JetStream", () => {
  it("does not open: the server has no JetStream to answer", async () => {
    const nc = await dial(withoutJs, creds.controller);
    await expect(openResultsLog(nc, opts("ctl_a"))).rejects.toThrow(/no responders/);
  });
});
