import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer as createHttpServer, type Server as HttpServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { connect, type NatsConnection, nkeyAuthenticator } from "@nats-io/transport-node";
import { createAgentCredentials, createControllerCredentials } from "@vantage/nats-auth";
import { heartbeatSchema } from "@vantage/protocol";
import { type NatsServer, startNatsServer } from "@vantage/testing";
import { type ControllerTransport, natsControllerTransport, TransportError } from "@vantage/transport";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CRASH_EXIT_CODE } from "./crash-guard.js";
import { agentEnv, job, linesAtLeast, mainPath, threadpoolPreload, until } from "./testing/agent-process.js";

/**
 * An error that escapes a job (thrown from a timer, as socket code once did) ends the agent process, but
 * the controller hears of it: the agent logs it with the jobs in flight, publishes its crash notice (a last
 * heartbeat listing them), and exits CRASH_EXIT_CODE; the controller's transport answers those jobs at once.
 */
const crashPreload = fileURLToPath(new URL("./testing/crash-on-discard-port.mjs", import.meta.url));
const creds = { proc: createAgentCredentials("proc-1"), controller: createControllerCredentials() };

let nats: NatsServer;
let ctlConn: NatsConnection;
let controller: ControllerTransport;
let dir: string;
let http: HttpServer;
let httpHits = 0;
const heartbeats: unknown[] = [];

beforeAll(async () => {
  nats = await startNatsServer({ users: [creds.proc.user, creds.controller.user] });
  dir = mkdtempSync(join(tmpdir(), "vantage-agent-crash-"));
  ctlConn = await connect({
    servers: nats.url,
    authenticator: nkeyAuthenticator(new TextEncoder().encode(creds.controller.seed)),
    reconnect: false,
  });
  // As an api-only controller: no heartbeat handler of its own; requests alone watch for crash notices.
  controller = natsControllerTransport(ctlConn, false);
  http = createHttpServer(() => {
    httpHits++; // never answers: the job stays in flight
  });
  await new Promise<void>((r) => http.listen(0, "127.0.0.1", r));
});

afterAll(async () => {
  await controller?.close();
  if (ctlConn && !ctlConn.isClosed()) await ctlConn.close();
  await nats?.stop();
  http?.closeAllConnections();
  http?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("an agent process whose job throws asynchronously", () => {
  let child: ChildProcess;
  let output = "";
  afterAll(() => {
    if (child && child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  });

  it("logs the jobs in flight, tells the controller, which answers them at once, and exits 70", async () => {
    const seedFile = join(dir, "proc-1.nk");
    writeFileSync(seedFile, `${creds.proc.seed}\n`, { mode: 0o600 });
    child = spawn(
      process.execPath,
      ["--require", threadpoolPreload, "--import", "tsx", "--import", crashPreload, mainPath],
      { env: agentEnv(nats.url, seedFile), stdio: ["ignore", "pipe", "pipe"] },
    );
    child.stdout?.on("data", (d: Buffer) => (output += d.toString()));
    child.stderr?.on("data", (d: Buffer) => (output += d.toString()));
    const exited = new Promise<number | null>((r) => child.once("close", (code) => r(code)));
    const watcher = await connect({
      servers: nats.url,
      authenticator: nkeyAuthenticator(new TextEncoder().encode(creds.controller.seed)),
      reconnect: false,
    });
    watcher.subscribe("probe.v1.node.proc-1.hb", {
      callback: (_e, m) => {
        heartbeats.push(JSON.parse(new TextDecoder().decode(m.data)));
      },
    });
    await until("the agent's first heartbeat", () => (heartbeats.length > 0 ? true : undefined), 15_000);

    // One innocent job in flight (an HTTP request that is never answered), then the one that crashes it.
    const port = (http.address() as { port: number }).port;
    const innocent = controller.request(
      "proc-1",
      job({
        job_id: "slow-1",
        spec: { type: "http", params: { url: `http://127.0.0.1:${port}/`, timeout_ms: 8000 } },
      }),
      9000,
    );
    innocent.catch(() => {});
    await until("the HTTP job to reach its target", () => (httpHits > 0 ? true : undefined), 8000);
    const sent = Date.now();
    const crashing = controller.request("proc-1", job({ job_id: "crash-1" }), 9000);
    const [a, b] = await Promise.allSettled([crashing, innocent]);
    const answeredMs = Date.now() - sent;

    for (const r of [a, b]) {
      expect(r.status).toBe("rejected");
      const err = (r as PromiseRejectedResult).reason as TransportError;
      expect(err).toBeInstanceOf(TransportError);
      expect(err.code).toBe("agent_crashed");
    }
    // The promise is "at once", not at the 9 s deadline: the throw comes 50 ms in, the notice right after.
    expect(answeredMs, `jobs answered ${answeredMs} ms after the crashing one was sent`).toBeLessThan(3000);
    expect(await exited, output).toBe(CRASH_EXIT_CODE);

    const notice = heartbeatSchema.parse(heartbeats.at(-1));
    expect(notice.draining).toBe(true);
    expect([...(notice.crashed_jobs ?? [])].sort()).toEqual(["crash-1", "slow-1"]);
    const fatal = linesAtLeast(output, 60)[0] as { msg: string; crashed_jobs?: string[] } | undefined;
    expect(fatal?.msg).toMatch(/uncaught error \(uncaughtException\) with 2 job\(s\) in flight/);
    expect(fatal?.crashed_jobs?.sort()).toEqual(["crash-1", "slow-1"]);
    const last = linesAtLeast(output, 50).at(-1) as { msg: string; exit_code?: number } | undefined;
    expect(last).toMatchObject({
      exit_code: CRASH_EXIT_CODE,
      msg: expect.stringMatching(/^agent exiting with code 70/),
    });
    await watcher.close();
  }, 40_000);
});
