import { pino } from "pino";
import { afterAll, beforeAll, describe, it } from "vitest";
import { type Runtime, startRuntime } from "../../runtime.js";
import { expectMtrRounds, mtrLiveBody, readStream } from "../../testing/mtr-stream.js";
import { lendPgliteDb } from "../../testing/pglite-pool.js";
import { forms, testConfig } from "../../testing/test-app.js";

/**
 * mtr round by round over the live stream in the embedded mode: the real runtime, its local agent in a
 * child process running the real mtr probe against loopback, its progress carried over the IPC link and
 * the in-process bus. (Over NATS, with agent credentials: e2e/mtr-live.e2e.test.ts.)
 */
describe.each(forms)("mtr live stream from the embedded local agent, form %s", (form) => {
  let rt: Runtime;
  beforeAll(async () => {
    rt = await startRuntime(
      testConfig(form, { VANTAGE_ALLOW_PRIVATE_TARGETS: "true" }),
      pino({ level: "silent" }),
      { db: (await lendPgliteDb()).db },
    );
  });
  afterAll(async () => {
    await rt.stop();
  });

  it("streams progress after each round, sent growing, then the result and done", async () => {
    const res = await rt.app.request("/v1/probe/mtr", {
      method: "POST",
      headers: { accept: "text/event-stream", "content-type": "application/json" },
      body: JSON.stringify(mtrLiveBody(form, ["local"])),
    });
    expectMtrRounds(await readStream(res), "local");
  });
});
