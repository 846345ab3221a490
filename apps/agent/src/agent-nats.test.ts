import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer as createHttpServer, type Server as HttpServer } from "node:http";
import { createServer as createTcpServer, type Server as TcpServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  connect,
  errors,
  type NatsConnection,
  nkeyAuthenticator,
  type Status,
} from "@nats-io/transport-node";
import { type Credentials, createAgentCredentials, createControllerCredentials } from "@vantage/nats-auth";
import {
  type Heartbeat,
  heartbeatSchema,
  jobReplySchema,
  PROTOCOL_VERSION,
  subjects,
} from "@vantage/protocol";
import { appArgs, captureLog, type NatsServer, startNatsServer } from "@vantage/testing";
import { type ControllerTransport, natsAgentLink, natsControllerTransport } from "@vantage/transport";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAgent } from "./agent.js";
import type { AgentSettings } from "./config.js";
import { agentEnv, job, linesAtLeast, runUntilExit, until } from "./testing/agent-process.js";

/**
 * A real nats-server with per-agent nkey users: what each agent's credentials may and may not do, and a
 * real agent process serving real probe jobs to loopback targets.
 */

const creds = {
  a: createAgentCredentials("node-a"),
  b: createAgentCredentials("node-b"),
  proc: createAgentCredentials("proc-1"),
  controller: createControllerCredentials(),
};

let nats: NatsServer;
let ctlConn: NatsConnection;
let controller: ControllerTransport;
let dir: string;
const heartbeats: Array<{ nodeId: string; message: unknown; at: number }> = [];
const open: NatsConnection[] = [];

function dial(c: Credentials, name: string): Promise<NatsConnection> {
  return connect({
    servers: nats.url,
    name,
    authenticator: nkeyAuthenticator(new TextEncoder().encode(c.seed)),
    reconnect: false,
  }).then((nc) => {
    open.push(nc);
    return nc;
  });
}

/** Collects a connection's status events (permission violations show up only there). */
function statusLog(nc: NatsConnection): Status[] {
  const seen: Status[] = [];
  void (async () => {
    for await (const s of nc.status()) seen.push(s);
  })();
  return seen;
}

function violations(seen: Status[]): InstanceType<typeof errors.PermissionViolationError>[] {
  return seen.flatMap((s) =>
    s.type === "error" && s.error instanceof errors.PermissionViolationError ? [s.error] : [],
  );
}

beforeAll(async () => {
  nats = await startNatsServer({
    users: [creds.a.user, creds.b.user, creds.proc.user, creds.controller.user],
  });
  dir = mkdtempSync(join(tmpdir(), "vantage-agent-"));
  ctlConn = await dial(creds.controller, "test-controller");
  controller = natsControllerTransport(ctlConn, false);
  controller.subscribeHeartbeats((nodeId, message) => heartbeats.push({ nodeId, message, at: Date.now() }));
  await ctlConn.flush();
});

afterAll(async () => {
  await controller?.close();
  for (const nc of open) if (!nc.isClosed()) await nc.close();
  await nats?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("per-agent NATS credentials", () => {
  it("agent A cannot subscribe to agent B's jobs, nor sniff other subjects", async () => {
    const nc = await dial(creds.a, "agent-a-snoop");
    const seen = statusLog(nc);
    const jobs = nc.subscribe(subjects.job("node-b"));
    const wild = nc.subscribe("probe.v1.node.*.job");
    const closed = await Promise.race([
      jobs.closed,
      new Promise((_, reject) => setTimeout(() => reject(new Error("sub not closed by server")), 3000)),
    ]);
    expect(closed).toBeInstanceOf(errors.PermissionViolationError);
    expect(await wild.closed).toBeInstanceOf(errors.PermissionViolationError);
    await until("status events", () => (violations(seen).length >= 2 ? true : undefined));
    expect(violations(seen).map((v) => [v.operation, v.subject])).toEqual(
      expect.arrayContaining([
        ["subscription", subjects.job("node-b")],
        ["subscription", "probe.v1.node.*.job"],
      ]),
    );
    // Nobody serves node-b: the controller learns so at once.
    await expect(controller.request("node-b", job(), 2000)).rejects.toMatchObject({ code: "no_responders" });
    expect(nc.isClosed()).toBe(false);
  });

  it("agent A cannot publish agent B's heartbeat, nor send jobs", async () => {
    const nc = await dial(creds.a, "agent-a-spoof");
    const seen = statusLog(nc);
    const before = heartbeats.length;
    nc.publish(subjects.heartbeat("node-b"), new TextEncoder().encode("{}"));
    nc.publish(subjects.job("node-a"), new TextEncoder().encode("{}"));
    await nc.flush();
    await until("status events", () => (violations(seen).length >= 2 ? true : undefined));
    expect(violations(seen).map((v) => [v.operation, v.subject])).toEqual([
      ["publish", subjects.heartbeat("node-b")],
      ["publish", subjects.job("node-a")],
    ]);
    await new Promise((r) => setTimeout(r, 100));
    expect(heartbeats.slice(before).filter((h) => h.nodeId === "node-b")).toEqual([]);
    expect(nc.isClosed()).toBe(false);
  });

  it("agent A serves its own jobs, publishes its own heartbeat, refuses and logs another protocol version", async () => {
    const nc = await dial(creds.a, "agent-a");
    const seen = statusLog(nc);
    const link = natsAgentLink(nc, false);
    const settings: AgentSettings = {
      VANTAGE_NODE_ID: "node-a",
      VANTAGE_NODE_NAME: "A",
      VANTAGE_NODE_COUNTRY: "DE",
      VANTAGE_NODE_REGION: "eu-central",
      VANTAGE_NODE_PROVIDER: "test",
      VANTAGE_AGENT_CONCURRENCY: 4,
      VANTAGE_HEARTBEAT_MS: 60_000,
      VANTAGE_ALLOW_PRIVATE_TARGETS: true,
    };
    const { log, lines } = captureLog();
    const agent = startAgent({
      config: settings,
      link,
      log,
      // This test is about permissions; the agent process below runs the real probes.
      probe: async () => ({ success: true, latency_ms: 1, error: null, detail: null }),
    });
    await nc.flush();
    const hb = await until("node-a heartbeat", () => heartbeats.find((h) => h.nodeId === "node-a"));
    expect(heartbeatSchema.parse(hb.message).node.id).toBe("node-a");

    const reply = jobReplySchema.parse(await controller.request("node-a", job({ job_id: "a-1" }), 3000));
    expect(reply).toMatchObject({ job_id: "a-1", status: "done", outcome: { success: true } });

    // The controller's notice (a publish on the job subject, no reply) gets through both users' permissions.
    controller.notify("node-a", { v: 999, notice: "incompatible_version", message: "heartbeats dropped" });
    const warned = await until("the version warning", () => lines.find((l) => l.level === 40));
    expect(warned).toMatchObject({
      remote_v: 999,
      agent_v: PROTOCOL_VERSION,
      controller_says: "heartbeats dropped",
    });

    const old = await controller.request("node-a", job({ v: 999, job_id: "a-2" }), 3000);
    expect(old).toMatchObject({ job_id: "a-2", status: "refused", error: { code: "incompatible_version" } });

    await agent.stop();
    expect(violations(seen)).toEqual([]);
  });
});

describe("agent process", () => {
  let child: ChildProcess;
  let output = "";
  let tcp: TcpServer;
  let http: HttpServer;
  let releaseHttp: (() => void) | undefined;
  let httpHit = false;

  beforeAll(async () => {
    const probes: object = await import("@vantage/probes");
    if (!("runProbe" in probes)) {
      throw new Error("@vantage/probes does not export runProbe: the agent process has no probes to run");
    }
    tcp = createTcpServer((s) => s.end());
    http = createHttpServer((_req, res) => {
      httpHit = true;
      releaseHttp = () => res.end("slow but fine");
    });
    await Promise.all([
      new Promise<void>((r) => tcp.listen(0, "127.0.0.1", r)),
      new Promise<void>((r) => http.listen(0, "127.0.0.1", r)),
    ]);
    const seedFile = join(dir, "proc-1.nk");
    writeFileSync(seedFile, `${creds.proc.seed}\n`, { mode: 0o600 });
    // Started as the systemd unit should start it: the preload sizes libuv's thread pool first.
    child = spawn(process.execPath, appArgs("agent"), {
      env: agentEnv(nats.url, seedFile),
      stdio: ["ignore", "pipe", "pipe"],
    });
    child.stdout?.on("data", (d: Buffer) => (output += d.toString()));
    child.stderr?.on("data", (d: Buffer) => (output += d.toString()));
  });

  afterAll(async () => {
    releaseHttp?.();
    if (child && child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    tcp?.close();
    http?.closeAllConnections();
    http?.close();
  });

  it("exits 2 when its credentials belong to another node id", async () => {
    const seedFile = join(dir, "proc-1.nk");
    const { code, log } = await runUntilExit({ ...agentEnv(nats.url, seedFile), VANTAGE_NODE_ID: "node-b" });
    expect(code, log).toBe(2);
    expect(log).toContain("created for another VANTAGE_NODE_ID");
    // Started without the preload: the agent says its thread pool is libuv's default.
    expect(log).toContain("thread pool left at 4");
  });

  it("exits 2 (no restart) when NATS refuses its key, as after `agent:add --remove`", async () => {
    const seedFile = join(dir, "unknown.nk");
    writeFileSync(seedFile, `${createAgentCredentials("proc-1").seed}\n`, { mode: 0o600 });
    const { code, log } = await runUntilExit(agentEnv(nats.url, seedFile));
    expect(code, log).toBe(2);
    expect(log).toContain("NATS refused the connection");
  });

  const procBeats = () =>
    heartbeats.filter((h) => h.nodeId === "proc-1").map((h) => heartbeatSchema.parse(h.message) as Heartbeat);

  it("connects with its nkey and heartbeats", async () => {
    const hb = await until("the agent process's first heartbeat", () => procBeats()[0], 20_000).catch(
      (err: Error) => {
        throw new Error(`${err.message}; agent output:\n${output}`);
      },
    );
    expect(hb).toMatchObject({
      node: { id: "proc-1", name: "Process 1", country: "NL", region: "eu-west", provider: "test" },
      version: "0.1.0",
      draining: false,
      running_jobs: 0,
    });
    // VANTAGE_AGENT_CONCURRENCY's default 64, plus libuv's 4.
    expect(output).toContain('"uv_threadpool_size":68');
    // It checked that NATS enforces permissions; the refusal it provoked is not logged as an error.
    expect(output).toContain("NATS enforces permissions");
    expect(linesAtLeast(output, 50)).toEqual([]);
    expect(output).not.toContain("thread pool left at 4");
  });

  it("answers a TCP probe to a loopback listener with the real probes", async () => {
    const port = (tcp.address() as { port: number }).port;
    const reply = jobReplySchema.parse(
      await controller.request(
        "proc-1",
        job({ job_id: "tcp-1", spec: { type: "tcp", params: { host: "127.0.0.1", port } } }),
        8000,
      ),
    );
    expect(reply, output).toMatchObject({
      job_id: "tcp-1",
      status: "done",
      outcome: { success: true, error: null, detail: { port, resolved_ip: "127.0.0.1" } },
    });
  });

  it("refuses a job of another protocol version", async () => {
    const reply = await controller.request("proc-1", job({ v: 999, job_id: "old-1" }), 5000);
    expect(reply).toMatchObject({
      job_id: "old-1",
      status: "refused",
      error: { code: "incompatible_version" },
    });
    await until("the log line", () => (output.includes("protocol version 999") ? true : undefined));
  });

  it("on SIGHUP stays up and says so in its log", async () => {
    const from = output.length;
    child.kill("SIGHUP");
    await until("the SIGHUP line", () => (/SIGHUP: ignored/.test(output.slice(from)) ? true : undefined));
    const port = (tcp.address() as { port: number }).port;
    const reply = jobReplySchema.parse(
      await controller.request(
        "proc-1",
        job({ spec: { type: "tcp", params: { host: "127.0.0.1", port } } }),
        5000,
      ),
    );
    expect(reply).toMatchObject({ status: "done", outcome: { success: true } });
    expect(child.exitCode).toBeNull();
  });

  it("on SIGTERM refuses new jobs, finishes the running one, sends a draining heartbeat, exits 0", async () => {
    const port = (http.address() as { port: number }).port;
    const inflight = controller.request(
      "proc-1",
      job({
        job_id: "http-1",
        spec: { type: "http", params: { url: `http://127.0.0.1:${port}/slow`, timeout_ms: 8000 } },
      }),
      9000,
    );
    inflight.catch(() => {}); // awaited below; keeps an early failure from being reported twice
    await until("the probe's request to arrive", () => (httpHit ? true : undefined), 8000);
    // "close", not "exit": it comes once stdout has ended too, so the exit line has been read.
    const exited = new Promise<number | null>((r) => child.once("close", (code) => r(code)));
    const drainingFrom = heartbeats.length;
    child.kill("SIGTERM");

    const draining = await until("a draining heartbeat", () =>
      heartbeats
        .slice(drainingFrom)
        .filter((h) => h.nodeId === "proc-1")
        .map((h) => heartbeatSchema.parse(h.message))
        .find((h) => h.draining),
    );
    expect(draining.running_jobs).toBe(1);
    const refused = await controller.request("proc-1", job({ job_id: "late-1" }), 3000);
    expect(refused).toMatchObject({ job_id: "late-1", status: "refused", error: { code: "shutting_down" } });

    releaseHttp?.();
    const reply = jobReplySchema.parse(await inflight);
    expect(reply).toMatchObject({
      job_id: "http-1",
      status: "done",
      outcome: { success: true, detail: { status_code: 200 } },
    });
    expect(await exited, output).toBe(0);
    // Its last line says why it exited, and with which code.
    const lastLine = output.trim().split("\n").at(-1) ?? "";
    expect(JSON.parse(lastLine)).toMatchObject({ exit_code: 0, reason: "SIGTERM: drained" });
    const last = procBeats().at(-1);
    expect(last).toMatchObject({ draining: true, running_jobs: 0 });
    await expect(controller.request("proc-1", job(), 2000)).rejects.toMatchObject({ code: "no_responders" });
  });
});
