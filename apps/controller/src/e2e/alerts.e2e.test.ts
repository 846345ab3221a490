import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SecretKey } from "../lib/secret-box.js";
import { loopbackSite } from "../testing/loopback-site.js";
import { planLimitsEnv } from "../testing/plan-limits.js";
import { checkAnswer } from "../testing/test-app.js";
import { until } from "../testing/until.js";
import { type Cluster, type Controller, startCluster } from "./cluster.js";

/**
 * Alerts end to end with real processes: nats-server, an agent, two controllers (every role, so both run
 * the scheduler and the notifier) on one PostgreSQL sharing VANTAGE_SECRET_KEY. A monitor's site goes down
 * while its webhook receiver is down too; the receiver comes back 10 s later and still gets the message;
 * the site comes back: one `monitor.down` and one `monitor.up`, each delivered once. The promise (issue #33):
 * a receiver that returns gets what waited within seconds (a failing channel is tried every 3–4 s); the
 * bound here is 20 s, margin for a slow machine, and the channel's GET says it is failing meanwhile.
 */
describe("alerts across two controllers (real processes)", () => {
  let cluster: Cluster;
  let a: Controller;
  let b: Controller;
  let sql: postgres.Sql;
  let headers: Record<string, string>;
  const site = loopbackSite();
  const received: string[] = [];
  let hook: Server | undefined;
  let hookPort = 0;

  const startHook = () =>
    new Promise<void>((resolve) => {
      const s = createServer((req, res) => {
        let body = "";
        req.on("data", (c: Buffer) => {
          body += c.toString();
        });
        req.on("end", () => {
          received.push((JSON.parse(body) as { type: string }).type);
          res.end();
        });
      });
      hook = s;
      s.listen(hookPort, "127.0.0.1", () => {
        hookPort = (s.address() as AddressInfo).port;
        resolve();
      });
    });
  const stopHook = () =>
    new Promise<void>((resolve) => {
      hook?.closeAllConnections();
      hook?.close(() => resolve());
    });

  beforeAll(async () => {
    cluster = await startCluster([
      { id: "al-fra", country: "DE", region: "eu-central", provider: "hetzner" },
    ]);
    const env = {
      VANTAGE_API_FORM: "b",
      VANTAGE_REGISTER_LIMIT_IP: "0",
      VANTAGE_SCHEDULER_TICK_MS: "100",
      VANTAGE_ALERTS_POLL_MS: "200",
      VANTAGE_SECRET_KEY: SecretKey.generate().toBase64(),
      VANTAGE_PLAN_LIMITS: planLimitsEnv({ free: { min_monitor_interval_s: 1 } }),
    };
    [a, b] = await Promise.all([cluster.startController(env), cluster.startController(env)]);
    await cluster.waitForNodes(a.url, ["al-fra"]);
    await cluster.waitForNodes(b.url, ["al-fra"]);
    sql = postgres(cluster.db.url, { max: 2, onnotice: () => {} });
    await Promise.all([site.start(), startHook()]);
    const reg = await fetch(`${a.url}/v1/auth/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: `alerts-${Date.now()}@example.com`, password: "correct horse battery" }),
    });
    const token = ((await reg.json()) as { data: { access_token: string } }).data.access_token;
    headers = { authorization: `Bearer ${token}`, "content-type": "application/json" };
  }, 180_000);
  afterAll(async () => {
    await sql?.end({ timeout: 5 });
    await site.stop();
    await stopHook();
    await a?.stop();
    await b?.stop();
    await cluster?.stop();
  });

  const api = async (to: Controller, method: string, path: string, body?: unknown) => {
    const res = await fetch(`${to.url}${path}`, {
      method,
      headers,
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    const json: unknown = await res.json();
    checkAnswer(to.form, method, path, res.status, json);
    return { status: res.status, body: json as { data: Record<string, unknown> } };
  };

  it("one down and one up, each delivered once, the down one within 20 s of its receiver's return after 10 s away", async () => {
    const monitor = await api(a, "POST", "/v1/monitors", {
      name: "shop",
      type: "http",
      url: site.url,
      interval: 1,
    });
    expect(monitor.status).toBe(201);
    const id = monitor.body.data.id as string;
    const channel = await api(b, "POST", "/v1/alert-channels", {
      name: "hook",
      type: "webhook",
      config: {
        url: `http://127.0.0.1:${hookPort}/hook`,
        secret: `whsec_${Buffer.alloc(32, 3).toString("base64")}`,
      },
    });
    expect(channel.status).toBe(201);
    expect(JSON.stringify(channel.body)).not.toContain(Buffer.alloc(32, 3).toString("base64"));
    const policy = await api(a, "POST", "/v1/alert-policies", {
      name: "on-call",
      monitor_id: id,
      channel_ids: [channel.body.data.id],
    });
    expect(policy.status).toBe(201);
    await until(
      "up",
      async () => (await api(b, "GET", `/v1/monitors/${id}`)).body.data.state === "up",
      60_000,
    );

    await stopHook();
    await site.stop();
    await until(
      "down",
      async () => (await api(b, "GET", `/v1/monitors/${id}`)).body.data.state === "down",
      60_000,
    );
    const downAt = Date.now();
    const channelId = channel.body.data.id as string;
    const delivery = async (to: Controller) =>
      (await api(to, "GET", `/v1/alert-channels/${channelId}`)).body.data.delivery as {
        failing: boolean;
        failing_since: string | null;
        next_attempt_at: string | null;
        last_error: string | null;
        queued: number;
      };
    // Away: the channel says so (read through either controller), with the alert waiting.
    await until("the channel failing", async () => (await delivery(a)).failing, 20_000);
    const away = await delivery(b);
    expect(away).toMatchObject({ failing: true, queued: 1 });
    expect(away.last_error).toBeTruthy();
    expect(Date.parse(away.next_attempt_at ?? "")).toBeLessThanOrEqual(Date.now() + 5_000);
    await new Promise((r) => setTimeout(r, Math.max(0, downAt + 10_000 - Date.now())));
    await startHook();
    const backAt = Date.now();
    await until("the down message after the receiver's return", () => received.length >= 1, 20_000);
    expect(Date.now() - backAt).toBeLessThan(20_000);
    await until("the channel well again", async () => !(await delivery(a)).failing, 10_000);
    expect(await delivery(a)).toMatchObject({ failing: false, failing_since: null, queued: 0 });
    await site.start();
    await until("the up message", () => received.length >= 2, 60_000);
    await new Promise((r) => setTimeout(r, 2000));
    expect(received).toEqual(["monitor.down", "monitor.up"]);

    const rows = await sql<{ type: string; status: string; attempts: number }[]>`
      select e.type, d.status, d.attempts from alert_events e join alert_deliveries d on d.event_id = e.id
      where e.monitor_id = ${id} order by e.created_at`;
    expect(rows.map((r) => [r.type, r.status])).toEqual([
      ["down", "sent"],
      ["up", "sent"],
    ]);
    expect(rows[0]?.attempts).toBeGreaterThan(1); // it was retried while the receiver was away
    const events = await api(a, "GET", `/v1/alert-events?monitor_id=${id}`);
    expect((events.body.data.items as { type: string }[]).map((e) => e.type)).toEqual(["up", "down"]);
  }, 150_000);
});
