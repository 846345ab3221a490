import { type NatsServer, startNatsServer } from "@vantage/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectNats, natsAgentLink, natsControllerTransport } from "./nats.js";
import { TransportError } from "./types.js";

/**
 * The controller's NATS connection lost with a job in flight (issue #27 item 4), on a real nats-server
 * restarted under it: the job is answered `transport_lost` when the connection drops, not at its deadline,
 * and the transport works again once nats.js has reconnected.
 */
describe("a NATS connection lost with jobs in flight", () => {
  let nats: NatsServer;
  beforeAll(async () => {
    nats = await startNatsServer();
  });
  afterAll(async () => {
    await nats.stop();
  });

  it("answers them transport_lost within 1 s of the reconnect, and later requests get their replies", async () => {
    let reconnectedAt: number | undefined;
    const controllerNc = await connectNats({
      servers: nats.url,
      name: "controller",
      onStatus: (s) => {
        if (s.type === "reconnect") reconnectedAt ??= performance.now();
      },
    });
    const agentNc = await connectNats({ servers: nats.url, name: "agent" });
    const transport = natsControllerTransport(controllerNc);
    const link = natsAgentLink(agentNc);

    // Node "held" keeps every job until released; node "echo" answers at once.
    let release!: () => void;
    const released = new Promise<void>((r) => {
      release = r;
    });
    let heldJobs = 0;
    const stopHeld = link.serveJobs("held", async (message) => {
      heldJobs++;
      await released;
      return message;
    });
    const stopEcho = link.serveJobs("echo", async (message) => message);
    await link.flush();

    const deadlineMs = 20_000;
    const sentAt = performance.now();
    const outcome = transport.request("held", { job_id: "job-1" }, deadlineMs).then(
      () => ({ error: undefined, at: performance.now() }),
      (error: unknown) => ({ error, at: performance.now() }),
    );
    for (let i = 0; i < 200 && heldJobs === 0; i++) await new Promise((r) => setTimeout(r, 10));
    expect(heldJobs, "the job reached the agent").toBe(1);

    await nats.restart(); // SIGTERM: the server closes every client connection, then a new one starts
    const { error, at } = await outcome;
    expect(error).toBeInstanceOf(TransportError);
    expect(error).toMatchObject({ code: "transport_lost" });
    expect((error as Error).message).toContain("node held");
    expect((error as Error).message).toContain("may or may not have run");
    expect(at - sentAt).toBeLessThan(deadlineMs / 2);

    // Wait for the reconnect, then for the agent's subscriptions to be renewed too.
    for (let i = 0; i < 1000 && reconnectedAt === undefined; i++) await new Promise((r) => setTimeout(r, 10));
    expect(reconnectedAt, "the controller reconnected").toBeDefined();
    expect(at).toBeLessThanOrEqual((reconnectedAt ?? 0) + 1000);
    expect(transport.connected()).toBe(true);

    // The held job's late reply, sent now, finds nothing waiting for it and is dropped.
    release();
    let answer: unknown;
    for (let i = 0; i < 100 && answer === undefined; i++) {
      answer = await transport.request("echo", { job_id: `job-echo-${i}` }, 2000).catch((err: unknown) => {
        // Until the agent is back, NATS says nobody serves the subject.
        expect(err).toMatchObject({ code: "no_responders" });
        return new Promise((r) => setTimeout(() => r(undefined), 50));
      });
    }
    expect(answer).toMatchObject({ job_id: expect.stringMatching(/^job-echo-/) });

    await stopHeld();
    await stopEcho();
    await link.close();
    await transport.close();
  }, 30_000);
});
