import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Runtime } from "../../runtime.js";
import { startEmbeddedTestRuntime } from "../../testing/embedded-runtime.js";
import { loopbackSite } from "../../testing/loopback-site.js";
import { until } from "../../testing/until.js";

/**
 * Monitors in the embedded mode `npm start` runs: PGlite (one connection: the scheduler's claim is one
 * statement, so FOR UPDATE SKIP LOCKED simply finds nothing locked), the in-process agent, every role.
 */
describe("monitors in embedded mode (PGlite, in-process agent)", () => {
  let runtime: Runtime;
  let dir: string;
  let headers: Record<string, string>;

  const site = loopbackSite();

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "vantage-embedded-monitors-"));
    runtime = await startEmbeddedTestRuntime(dir);
    await site.start();
    const reg = await runtime.app.request("/v1/auth/register", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: "embedded-monitor@example.com", password: "correct horse battery" }),
    });
    const token = ((await reg.json()) as { data: { access_token: string } }).data.access_token;
    headers = { authorization: `Bearer ${token}`, "content-type": "application/json" };
  }, 60_000);
  afterAll(async () => {
    await site.stop();
    await runtime?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const api = async (method: string, path: string, body?: unknown) => {
    const res = await runtime.app.request(path, {
      method,
      headers,
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    return { status: res.status, body: (await res.json()) as { data: Record<string, unknown> } };
  };
  const runCount = async () =>
    Number(
      (await sql<{ n: number }>`select count(*) as n from monitor_runs`.execute(runtime.db.kysely)).rows[0]
        ?.n,
    );

  it("goes down and up with its target, stops when paused and when deleted", async () => {
    const created = await api("POST", "/v1/monitors", {
      name: "embedded",
      type: "http",
      url: site.url,
      interval: 1,
    });
    expect(created.status).toBe(201);
    const id = created.body.data.id as string;
    const state = async () => (await api("GET", `/v1/monitors/${id}`)).body.data.state;
    await until("up", async () => (await state()) === "up");
    await site.stop();
    await until("down", async () => (await state()) === "down");
    await site.start();
    await until("up again", async () => (await state()) === "up");

    await api("POST", `/v1/monitors/${id}/pause`);
    await new Promise((r) => setTimeout(r, 1200));
    const paused = await runCount();
    await new Promise((r) => setTimeout(r, 2500));
    expect(await runCount()).toBe(paused);

    await api("POST", `/v1/monitors/${id}/resume`);
    await until("running again", async () => (await runCount()) > paused);
    expect((await api("DELETE", `/v1/monitors/${id}`)).status).toBe(200);
    await new Promise((r) => setTimeout(r, 1200));
    const deleted = await runCount();
    await new Promise((r) => setTimeout(r, 2500));
    expect(await runCount()).toBe(deleted);
  }, 90_000);
});
