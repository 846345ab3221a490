import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Runtime } from "../../runtime.js";
import { startEmbeddedTestRuntime } from "../../testing/embedded-runtime.js";
import { loopbackSite } from "../../testing/loopback-site.js";
import { until } from "../../testing/until.js";

interface Received {
  hook: string;
  type: string;
  ackUrl: string | undefined;
}

/**
 * Issue #29 acceptance, embedded mode with every role: a site goes down; the policy's channel hears it, and
 * nobody acknowledges, so its escalation step tells a second channel (a step's minute is 200 ms here);
 * the signed link in the message acknowledges once. Then a maintenance window mutes the next outage, and
 * uptime counts its failing runs as maintenance.
 */
describe("escalation and maintenance from a monitor to webhooks (embedded mode)", () => {
  let runtime: Runtime;
  let dir: string;
  let hook: Server;
  let base = "";
  const received: Received[] = [];
  const site = loopbackSite();
  let headers: Record<string, string>;

  const api = async (method: string, path: string, body?: unknown) => {
    const res = await runtime.app.request(path, {
      method,
      headers,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.status, body: (await res.json()) as { data: Record<string, unknown> } };
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "vantage-escalation-flow-"));
    hook = createServer((req, res) => {
      let body = "";
      req.on("data", (c: Buffer) => {
        body += c.toString();
      });
      req.on("end", () => {
        const b = JSON.parse(body) as { type: string; data: { ack_url?: string } };
        received.push({ hook: req.url ?? "", type: b.type, ackUrl: b.data.ack_url });
        res.end();
      });
    });
    await new Promise<void>((r) => hook.listen(0, "127.0.0.1", r));
    base = `http://127.0.0.1:${(hook.address() as AddressInfo).port}`;
    runtime = await startEmbeddedTestRuntime(dir, {
      VANTAGE_ALERTS_POLL_MS: "100",
      VANTAGE_ALERTS_ESCALATION_MINUTE_MS: "200",
    });
    await site.start();
    const reg = await runtime.app.request("/v1/auth/register", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: "escalation-flow@example.com", password: "correct horse battery" }),
    });
    headers = {
      authorization: `Bearer ${((await reg.json()) as { data: { access_token: string } }).data.access_token}`,
      "content-type": "application/json",
    };
  }, 60_000);
  afterAll(async () => {
    await site.stop();
    await runtime?.stop();
    hook?.closeAllConnections();
    await new Promise((r) => hook?.close(r));
    rmSync(dir, { recursive: true, force: true });
  });

  it("unacknowledged: the second channel hears the outage; the link acknowledges once; a window mutes", async () => {
    const monitor = (
      await api("POST", "/v1/monitors", { name: "esc", type: "http", url: site.url, interval: 1 })
    ).body.data.id as string;
    const channel = async (name: string) =>
      (await api("POST", "/v1/alert-channels", { name, type: "webhook", config: { url: `${base}/${name}` } }))
        .body.data.id as string;
    const first = await channel("first");
    const second = await channel("second");
    const policy = await api("POST", "/v1/alert-policies", {
      name: "on-call",
      monitor_id: monitor,
      channel_ids: [first],
      on_up: false,
      escalation: [{ after_minutes: 1, channel_ids: [second] }],
    });
    expect(policy.status).toBe(201);
    const state = async () =>
      (await api("GET", `/v1/monitors/${monitor}`)).body.data.state as string | undefined;
    await until("up", async () => (await state()) === "up", 30_000);

    await site.stop();
    await until(
      "the first channel hears the outage",
      () => received.some((r) => r.hook === "/first"),
      40_000,
    );
    await until(
      "the step tells the second channel",
      () => received.some((r) => r.hook === "/second"),
      20_000,
    );
    expect(received.map((r) => [r.hook, r.type])).toEqual([
      ["/first", "monitor.down"],
      ["/second", "monitor.down"],
    ]);
    const link = received[0]!.ackUrl;
    expect(link).toMatch(/\/v1\/alert-ack\/evt_[0-9a-z]+\.\d+\.[\w-]+$/);
    // The escalation's link names the same down event (its expiry counts from its own message, so the two
    // links differ when the messages go out in different seconds).
    const eventOf = (url: string) => new URL(url).pathname.split(".")[0];
    expect(eventOf(received[1]!.ackUrl!)).toBe(eventOf(link!));
    const path = new URL(link!).pathname;
    const acked = await runtime.app.request(path, { method: "POST" });
    expect(acked.status).toBe(200);
    expect((await runtime.app.request(path, { method: "POST" })).status).toBe(409);
    // Acknowledged once: the other message's link finds it acknowledged too.
    expect(
      (await runtime.app.request(new URL(received[1]!.ackUrl!).pathname, { method: "POST" })).status,
    ).toBe(409);

    // A maintenance window over the monitor: its next outage alerts nobody; uptime marks it.
    await site.start();
    await until("up again", async () => (await state()) === "up", 30_000);
    const now = Date.now();
    const w = await api("POST", "/v1/maintenance-windows", {
      title: "work",
      monitor_ids: [monitor],
      starts_at: new Date(now - 1000).toISOString(),
      ends_at: new Date(now + 3_600_000).toISOString(),
    });
    expect(w.status).toBe(201);
    await site.stop();
    await until("down inside the window", async () => (await state()) === "down", 30_000);
    const k = runtime.db.kysely;
    await until(
      "the change is muted by the window",
      async () =>
        (
          await k
            .selectFrom("monitor_state_changes")
            .select("maintenance_id")
            .where("monitor_id", "=", monitor)
            .where("to_state", "=", "down")
            .where("maintenance_id", "is not", null)
            .execute()
        ).length === 1,
      40_000,
    );
    expect(received).toHaveLength(2);
    const uptime = (await api("GET", `/v1/monitors/${monitor}/uptime`)).body.data as {
      maintenance: { failures: number; seconds: number };
    };
    expect(uptime.maintenance.failures).toBeGreaterThan(0);
    expect(uptime.maintenance.seconds).toBeGreaterThan(0);
  }, 180_000);
});
