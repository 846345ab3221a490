import { connect } from "node:net";
import { createTestDatabase, listeningOn, type TestDatabase } from "@vantage/testing";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { exitOf, listeningPorts, startController } from "./testing/controller-process.js";

/**
 * VANTAGE_METRICS_LISTEN on a real controller process: `/metrics` moves to a server of its own, opened
 * whatever the roles, and the API port no longer has it. Each series is exported by the role that owns it
 * only: the HTTP ones by the api role, the monitor scheduler's by the scheduler role.
 */

const TOKEN = "metrics-token-0123456789abcdef";

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ port, host: "127.0.0.1" });
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

describe("VANTAGE_METRICS_LISTEN (controller process)", () => {
  let pg: TestDatabase;
  const running: { kill(): void; exited: Promise<{ code: number | null }> }[] = [];

  beforeAll(async () => {
    pg = await createTestDatabase();
  });
  afterEach(async () => {
    for (const c of running.splice(0)) {
      c.kill();
      await c.exited;
    }
  });
  afterAll(async () => {
    await pg.drop();
  });

  /**
   * A controller whose API port (with the api role) and metrics port are its own picks (port 0 for both),
   * as its `listening` and `metrics listening` lines name them.
   */
  async function controller(env: Record<string, string>) {
    const child = startController({
      DATABASE_URL: pg.url,
      PORT: "0",
      VANTAGE_METRICS_LISTEN: "127.0.0.1:0",
      VANTAGE_LOG_LEVEL: "info",
      VANTAGE_ACCESS_LOG: "false",
      ...env,
    });
    const exited = exitOf(child);
    running.push({ kill: () => child.kill("SIGTERM"), exited });
    // A start takes seconds under tsx, and much longer on a machine busy with other test files.
    const serves = env.VANTAGE_ROLES === undefined || env.VANTAGE_ROLES.split(",").includes("api");
    const { port, log } = await listeningOn(child, { serves, timeoutMs: 90_000 });
    const started = await log.waitFor((l) => l.msg === "controller running", 90_000);
    const metricsLine = await log.waitFor((l) => l.msg === "metrics listening");
    const metricsPort = Number(new URL(String(metricsLine.url)).port);
    return { port, metricsPort, child, log, started, exited };
  }

  it("serves /metrics on its own address (token required) while the API port answers 404 for it", async () => {
    const { port, metricsPort, child, log, exited } = await controller({
      VANTAGE_ROLES: "api",
      VANTAGE_METRICS_TOKEN: TOKEN,
    });
    expect(listeningPorts(child.pid!).sort()).toEqual([port, metricsPort].sort());
    const line = await log.waitFor((l) => l.msg === "metrics listening");
    expect(line).toMatchObject({ url: `http://127.0.0.1:${metricsPort}/metrics`, token: true });

    const api = `http://127.0.0.1:${port}`;
    const metrics = `http://127.0.0.1:${metricsPort}`;
    expect((await fetch(`${api}/healthz`)).status).toBe(200);
    for (const headers of [{}, { authorization: `Bearer ${TOKEN}` }]) {
      const onApi = await fetch(`${api}/metrics`, { headers });
      expect(onApi.status).toBe(404);
      expect(((await onApi.json()) as { error: { code: string } }).error.code).toBe("not_found");
    }

    const refused = await fetch(`${metrics}/metrics`);
    expect(refused.status).toBe(401);
    expect(refused.headers.get("www-authenticate")).toBe("Bearer");
    const wrong = await fetch(`${metrics}/metrics`, {
      headers: { authorization: "Bearer not-the-token-at-all" },
    });
    expect(wrong.status).toBe(401);
    const ok = await fetch(`${metrics}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(ok.status).toBe(200);
    const text = await ok.text();
    // The API's traffic is counted there, the scrapes themselves are not.
    expect(text).toMatch(/vantage_http_requests_total\{method="GET",route="\/healthz",status="200"\} 1\n/);
    expect(text).toContain("vantage_process_cpu_seconds_total");
    expect(text).not.toContain('route="/metrics"');
    // The scheduler's series are not this controller's to report, not even as zeros.
    expect(text).not.toContain("vantage_monitor_");
    // The metrics server serves nothing else.
    expect((await fetch(`${metrics}/healthz`)).status).toBe(404);
    expect((await fetch(`${metrics}/v1/nodes`)).status).toBe(404);

    // Stopped: both ports close, and the process exits cleanly.
    running.splice(0);
    child.kill("SIGTERM");
    expect((await exited).code).toBe(0);
    expect(await accepts(port)).toBe(false);
    expect(await accepts(metricsPort)).toBe(false);
  }, 120_000);

  it("scheduler only: serves its own series on the metrics address and opens no API port", async () => {
    const { metricsPort, child, log, started, exited } = await controller({
      VANTAGE_ROLES: "scheduler",
      VANTAGE_METRICS_TOKEN: TOKEN,
    });
    expect(started.roles).toEqual(["scheduler"]);
    expect(listeningPorts(child.pid!)).toEqual([metricsPort]);
    expect(log.lines.some((l) => l.msg === "listening")).toBe(false);

    const metrics = `http://127.0.0.1:${metricsPort}`;
    expect((await fetch(`${metrics}/metrics`)).status).toBe(401);
    const ok = await fetch(`${metrics}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(ok.status).toBe(200);
    const text = await ok.text();
    for (const name of [
      "vantage_monitor_runs_total",
      "vantage_monitor_duplicate_rows_total",
      "vantage_monitor_schedule_lag_seconds",
      "vantage_monitor_runs_in_flight",
    ])
      expect(text).toContain(`# TYPE ${name} `);
    expect(text).toMatch(/^vantage_monitor_duplicate_rows_total 0$/m);
    expect(text).toContain("vantage_process_cpu_seconds_total");
    // No API here: none of its series, not even their headers.
    expect(text).not.toContain("vantage_http_");
    expect((await fetch(`${metrics}/v1/nodes`)).status).toBe(404);

    running.splice(0);
    child.kill("SIGTERM");
    expect((await exited).code).toBe(0);
    expect(await accepts(metricsPort)).toBe(false);
  }, 120_000);
});
