import { afterAll, beforeAll, describe, it } from "vitest";
import { expectMtrRounds, mtrLiveBody, readStream } from "../testing/mtr-stream.js";
import { type Cluster, type Controller, startCluster } from "./cluster.js";

/**
 * mtr round by round over the live stream, distributed: nats-server with per-agent nkey credentials (the
 * agent may answer its requests only: its progress goes to the request's reply subject), an agent process
 * running the real mtr probe against loopback, and the controller as a process, once per API form.
 */
const agent = { id: "e2e-mtr", country: "DE", region: "eu-central", provider: "hetzner" };

describe("mtr live stream end to end (NATS, PostgreSQL, agent process, controller process)", () => {
  let cluster: Cluster;
  beforeAll(async () => {
    cluster = await startCluster([agent]);
  }, 120_000);
  afterAll(async () => {
    await cluster?.stop();
  });

  describe.each(["a", "b"] as const)("form %s", (form) => {
    let controller: Controller;
    beforeAll(async () => {
      controller = await cluster.startController({
        VANTAGE_API_FORM: form,
        VANTAGE_ALLOW_PRIVATE_TARGETS: "true",
      });
      await cluster.waitForNodes(controller.url, [agent.id]);
    }, 90_000);
    afterAll(async () => {
      await controller?.stop();
    });

    it("streams progress after each round, sent growing, then the result and done", async () => {
      const res = await fetch(`${controller.url}/v1/probe/mtr`, {
        method: "POST",
        headers: { accept: "text/event-stream", "content-type": "application/json" },
        body: JSON.stringify(mtrLiveBody(form, [agent.id])),
      });
      expectMtrRounds(await readStream(res), agent.id);
    });
  });
});
