import { spawn } from "node:child_process";
import { createServer as createTcpServer, type Server as TcpServer } from "node:net";
import { connect, type NatsConnection } from "@nats-io/transport-node";
import { jobReplySchema } from "@vantage/protocol";
import { appArgs, type NatsServer, startNatsServer } from "@vantage/testing";
import { type ControllerTransport, natsControllerTransport } from "@vantage/transport";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agentEnv, job, linesAtLeast, runUntilExit, until } from "./testing/agent-process.js";

/** An agent refuses a NATS server that enforces no permissions, unless told it is for development. */
const open: NatsConnection[] = [];

describe("agent process on a NATS server without authorization", () => {
  let openNats: NatsServer;
  let openCtl: ControllerTransport;
  let tcp: TcpServer;

  beforeAll(async () => {
    openNats = await startNatsServer();
    const nc = await connect({ servers: openNats.url, name: "open-controller", reconnect: false });
    open.push(nc);
    openCtl = natsControllerTransport(nc, false);
    tcp = createTcpServer((s) => s.end());
    await new Promise<void>((r) => tcp.listen(0, "127.0.0.1", r));
  });

  afterAll(async () => {
    await openCtl?.close();
    for (const nc of open) if (!nc.isClosed()) await nc.close();
    await openNats?.stop();
    tcp?.close();
  });

  const openEnv = (extra: Record<string, string> = {}): NodeJS.ProcessEnv => {
    const { NATS_NKEY_SEED_FILE: _, ...env } = agentEnv(openNats.url, "");
    return { ...env, NATS_URL: openNats.url, VANTAGE_NODE_ID: "open-1", ...extra };
  };

  it("refuses to serve: exits 2 (no restart) with one line saying why, then its exit line", async () => {
    const { code, log } = await runUntilExit(openEnv());
    expect(code, log).toBe(2);
    expect(linesAtLeast(log, 50).map((l) => l.msg)).toEqual([
      "NATS server does not enforce permissions: any client could impersonate this node; configure " +
        "authorization (docs/operations.md) or set VANTAGE_ALLOW_OPEN_NATS=true for development",
      "agent exiting with code 2: NATS server does not enforce permissions",
    ]);
    expect(log).not.toContain("agent serving jobs");
  });

  it("with VANTAGE_ALLOW_OPEN_NATS=true warns once and serves jobs", async () => {
    const agent = spawn(process.execPath, appArgs("agent", { preload: false }), {
      env: openEnv({ VANTAGE_ALLOW_OPEN_NATS: "true" }),
      stdio: ["ignore", "pipe", "pipe"],
    });
    let log = "";
    agent.stdout?.on("data", (d: Buffer) => (log += d.toString()));
    agent.stderr?.on("data", (d: Buffer) => (log += d.toString()));
    const exited = new Promise<number | null>((r) => agent.once("close", (c) => r(c)));
    try {
      const port = (tcp.address() as { port: number }).port;
      const spec = { type: "tcp", params: { host: "127.0.0.1", port } };
      await until(
        "the agent to serve",
        () => (log.includes("agent serving jobs") ? true : undefined),
        20_000,
      ).catch((err: Error) => {
        throw new Error(`${err.message}; agent output:\n${log}`);
      });
      // Its subscription may reach the server a moment after the log line: "no responders" until then.
      let reply: unknown;
      for (let attempt = 0; ; attempt++) {
        try {
          reply = await openCtl.request("open-1", job({ job_id: "open-1", spec }), 8000);
          break;
        } catch (err) {
          if (attempt >= 20 || (err as { code?: string }).code !== "no_responders") throw err;
          await new Promise((r) => setTimeout(r, 50));
        }
      }
      expect(jobReplySchema.parse(reply), log).toMatchObject({
        job_id: "open-1",
        status: "done",
        outcome: { success: true, detail: { port } },
      });
      const warned = log.split("\n").filter((l) => l.includes("VANTAGE_ALLOW_OPEN_NATS=true"));
      expect(warned).toHaveLength(1);
      expect(JSON.parse(warned[0]!)).toMatchObject({
        level: 40,
        msg: expect.stringContaining("NATS server does not enforce permissions"),
      });
      expect(linesAtLeast(log, 50)).toEqual([]);
    } finally {
      agent.kill("SIGTERM");
      expect(await exited, log).toBe(0);
    }
  });
});
