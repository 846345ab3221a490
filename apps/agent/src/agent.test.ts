import type { ProbeOutcome } from "@vantage/probes";
import { type Heartbeat, heartbeatSchema, jobReplySchema, PROTOCOL_VERSION } from "@vantage/protocol";
import { captureLog } from "@vantage/testing";
import { InProcessBus, TransportError } from "@vantage/transport";
import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { startAgent } from "./agent.js";
import type { AgentSettings } from "./config.js";
import type { ProbeFn } from "./runner.js";

const settings: AgentSettings = {
  VANTAGE_NODE_ID: "local-1",
  VANTAGE_NODE_NAME: "Local",
  VANTAGE_NODE_COUNTRY: "DE",
  VANTAGE_NODE_REGION: "local",
  VANTAGE_NODE_PROVIDER: "self",
  VANTAGE_AGENT_CONCURRENCY: 2,
  VANTAGE_HEARTBEAT_MS: 1000,
  VANTAGE_ALLOW_PRIVATE_TARGETS: true,
};

const ok: ProbeOutcome = {
  success: true,
  latency_ms: 2,
  error: null,
  detail: { resolved_ip: "127.0.0.1", port: 1, connect_ms: 2 },
};

describe("startAgent over the in-process bus (the embedded mode's local agent)", () => {
  it("heartbeats, serves jobs, and drains on stop with a last draining heartbeat", async () => {
    const bus = new InProcessBus();
    const controller = bus.controller();
    const beats: Array<{ nodeId: string; hb: Heartbeat }> = [];
    controller.subscribeHeartbeats((nodeId, message) =>
      beats.push({ nodeId, hb: heartbeatSchema.parse(message) }),
    );
    let release: (() => void) | undefined;
    const probe: ProbeFn = () => new Promise((r) => (release = () => r(ok)));
    const agent = startAgent({ config: settings, link: bus.agent(), log: pino({ level: "silent" }), probe });

    await new Promise((r) => setTimeout(r, 10));
    expect(beats[0]).toMatchObject({
      nodeId: "local-1",
      hb: {
        v: PROTOCOL_VERSION,
        node: { id: "local-1", name: "Local", country: "DE", region: "local", provider: "self" },
        version: "0.1.0",
        running_jobs: 0,
        max_jobs: 2,
        draining: false,
      },
    });
    expect(beats[0]?.hb.capabilities).toEqual(expect.arrayContaining(["ipv4", "tcp", "http", "dns"]));

    const job = {
      v: PROTOCOL_VERSION,
      job_id: "j-1",
      budget_ms: 5000,
      spec: { type: "tcp", params: { host: "127.0.0.1", port: 1 } },
    };
    const pending = controller.request("local-1", job, 5000);
    await new Promise((r) => setTimeout(r, 10));
    expect(agent.running()).toBe(1);

    const stopped = agent.stop();
    const refused = await controller.request("local-1", { ...job, job_id: "j-2" }, 1000);
    expect(refused).toMatchObject({ status: "refused", error: { code: "shutting_down" } });
    expect(beats.at(-1)?.hb.draining).toBe(true);

    release?.();
    const reply = jobReplySchema.parse(await pending);
    expect(reply).toMatchObject({ job_id: "j-1", status: "done", outcome: ok });
    await stopped;
    await new Promise((r) => setTimeout(r, 10));
    expect(beats.at(-1)?.hb).toMatchObject({ draining: true, running_jobs: 0 });
    const after = await controller.request("local-1", job, 1000).catch((e: unknown) => e);
    expect((after as TransportError).code).toBe("no_responders");
    expect(after).toBeInstanceOf(TransportError);
  });

  it("a message of another version on the job subject: warn log naming both versions; a reply only if asked", async () => {
    const bus = new InProcessBus();
    const controller = bus.controller();
    const { log, lines } = captureLog();
    let ran = false;
    const agent = startAgent({
      config: settings,
      link: bus.agent(),
      log,
      probe: async () => {
        ran = true;
        return ok;
      },
    });
    // What the controller's presence publishes when it drops this node's heartbeats: no reply subject.
    controller.notify("local-1", {
      v: PROTOCOL_VERSION + 1,
      notice: "incompatible_version",
      message: "the controller drops this node's heartbeats",
    });
    await new Promise((r) => setTimeout(r, 10));
    const warns = lines.filter((l) => l.level === 40);
    expect(warns).toHaveLength(1);
    expect(warns[0]).toMatchObject({
      node_id: "local-1",
      remote_v: PROTOCOL_VERSION + 1,
      agent_v: PROTOCOL_VERSION,
    });
    expect(String(warns[0]?.msg)).toContain(
      `protocol version ${PROTOCOL_VERSION + 1} from the controller is not this agent's v${PROTOCOL_VERSION}`,
    );
    expect(String(warns[0]?.msg)).toContain("upgrade this agent");

    // A request of another version is answered, refused, and does not log again within the minute.
    const reply = await controller.request(
      "local-1",
      { v: PROTOCOL_VERSION + 1, job_id: "new-1", budget_ms: 1000, spec: { type: "tcp" } },
      1000,
    );
    expect(reply).toMatchObject({
      v: PROTOCOL_VERSION,
      job_id: "new-1",
      status: "refused",
      error: { code: "incompatible_version" },
    });
    expect(lines.filter((l) => l.level === 40)).toHaveLength(1);
    expect(ran).toBe(false);
    await agent.stop();
  });
});
