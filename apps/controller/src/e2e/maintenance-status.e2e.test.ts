import { randomBytes } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SecretKey } from "../lib/secret-box.js";
import { loopbackSite } from "../testing/loopback-site.js";
import { planLimitsEnv } from "../testing/plan-limits.js";
import { until } from "../testing/until.js";
import { type Cluster, type Controller, startCluster } from "./cluster.js";
import { call } from "./http-call.js";

/**
 * Issue #29 items 4–6 end to end with real processes (nats-server, an agent, one controller with every role),
 * loopback sites the agent probes and webhook receivers as channels:
 * - a maintenance window over a monitor: its site goes down, the state changes, no `down` reaches the
 *   webhook, uptime counts the time as maintenance; the window ends with the site still down → one alert;
 * - the status page of that monitor (HTML without scripts, JSON, Atom, SVG badges) shows the window while
 *   it is open, the incident opened from the outage after it, and the page's scheduled maintenance;
 * - escalation: the down alert reaches channel A, then (unacknowledged) channel B; the next outage's alert,
 *   acknowledged through the signed link in A's message, never reaches B.
 * The two scenarios run concurrently (independent monitors and channels) to overlap their waits. A step's
 * "minute" is 2 s here (VANTAGE_ALERTS_ESCALATION_MINUTE_MS). (e2e/ enters modules through their index
 * only, so the receiver here is its own, not alerts/testing's.)
 */
const MINUTE_MS = 2000;
const STEP_MINUTES = 2;

interface Hook {
  type: string;
  data: { monitor: { id: string } | null; ack_url?: string; event_id?: string };
}

describe.concurrent("maintenance, status pages and escalation (real processes)", () => {
  let cluster: Cluster;
  let api0: Controller;
  let sql: postgres.Sql;
  let auth: Record<string, string>;
  /** Every webhook message by path (one path per channel). */
  const received: { path: string; body: Hook }[] = [];
  let receiver: Server | undefined;
  let receiverBase = "";
  const hooks = (path: string) => received.filter((r) => r.path === path).map((r) => r.body);

  beforeAll(async () => {
    cluster = await startCluster([
      { id: "ms-fra", country: "DE", region: "eu-central", provider: "hetzner" },
    ]);
    api0 = await cluster.startController({
      VANTAGE_API_FORM: "b",
      VANTAGE_REGISTER_LIMIT_IP: "0",
      VANTAGE_SCHEDULER_TICK_MS: "100",
      VANTAGE_ALERTS_POLL_MS: "200",
      VANTAGE_ALERTS_ESCALATION_MINUTE_MS: String(MINUTE_MS),
      VANTAGE_SECRET_KEY: SecretKey.generate().toBase64(),
      VANTAGE_PLAN_LIMITS: planLimitsEnv({ free: { min_monitor_interval_s: 1 } }),
    });
    await cluster.waitForNodes(api0.url, ["ms-fra"]);
    sql = postgres(cluster.db.url, { max: 2, onnotice: () => {} });
    receiver = createServer((req, res) => {
      let body = "";
      req.on("data", (c: Buffer) => {
        body += c.toString();
      });
      req.on("end", () => {
        received.push({ path: req.url ?? "", body: JSON.parse(body) as Hook });
        res.end();
      });
    });
    await new Promise<void>((r) => receiver?.listen(0, "127.0.0.1", r));
    receiverBase = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
    const reg = await call(api0, "POST", "/v1/auth/register", {
      email: `ms-${Date.now()}@example.com`,
      password: "correct horse battery",
    });
    expect(reg.status).toBe(201);
    auth = { authorization: `Bearer ${reg.body.data.access_token}` };
  }, 180_000);
  afterAll(async () => {
    await sql?.end({ timeout: 5 });
    receiver?.closeAllConnections();
    await new Promise((r) => receiver?.close(r));
    await api0?.stop();
    await cluster?.stop();
  });

  const api = async (method: string, path: string, body?: unknown) => {
    const r = await call(api0, method, path, body, auth);
    if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${JSON.stringify(r.body)}`);
    // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON bodies
    return r.body.data as any;
  };
  const stateOf = async (id: string) => (await api("GET", `/v1/monitors/${id}`)).state as string;
  const watched = async (name: string, url: string) =>
    (await api("POST", "/v1/monitors", { name, type: "http", url, interval: 1 })).id as string;
  const webhook = async (name: string) =>
    (
      await api("POST", "/v1/alert-channels", {
        name,
        type: "webhook",
        config: { url: `${receiverBase}/${name}` },
      })
    ).id as string;
  /** A public page (no credentials): its status and body. */
  const publicGet = async (path: string) => {
    const res = await fetch(`${api0.url}${path}`);
    return { status: res.status, type: res.headers.get("content-type") ?? "", text: await res.text() };
  };

  it("a window mutes the down alert and counts as maintenance; the status page shows it, then the incident", async () => {
    const site = loopbackSite();
    await site.start();
    const monitor = await watched("Shop", site.url);
    const policy = await api("POST", "/v1/alert-policies", {
      name: "shop on-call",
      monitor_id: monitor,
      channel_ids: [await webhook("maint")],
    });
    expect(policy.id).toBeTruthy();
    const slug = `shop-${randomBytes(4).toString("hex")}`;
    const page = await api("POST", "/v1/status-pages", {
      slug,
      title: "Shop status",
      components: [{ name: "Checkout", monitor_ids: [monitor] }],
      auto_incidents: true,
    });
    const now = Date.now();
    await api("POST", `/v1/status-pages/${page.id}/maintenance`, {
      title: "Payment provider migration",
      description: "Checkout read-only",
      starts_at: new Date(now + 86_400_000).toISOString(),
      ends_at: new Date(now + 86_400_000 + 3_600_000).toISOString(),
    });
    await until("the monitor up", async () => (await stateOf(monitor)) === "up", 60_000);

    // The work starts: a window over the monitor, open now; the site goes away inside it.
    const window = await api("POST", "/v1/maintenance-windows", {
      title: "Database failover",
      monitor_ids: [monitor],
      starts_at: new Date(Date.now() - 1000).toISOString(),
      ends_at: new Date(Date.now() + 3_600_000).toISOString(),
    });
    expect(window.active).toBe(true);
    await site.stop();
    await until(
      "the monitor down inside the window",
      async () => (await stateOf(monitor)) === "down",
      60_000,
    );
    await until(
      "the notifier to mute the change with the window",
      async () =>
        (
          await sql`select 1 from monitor_state_changes
            where monitor_id = ${monitor} and to_state = 'down' and maintenance_id = ${window.id}`
        ).length === 1,
      30_000,
    );
    expect(hooks("/maint")).toEqual([]);
    expect((await api("GET", `/v1/alert-events?monitor_id=${monitor}`)).items).toEqual([]);
    // Uptime: the failing runs are maintenance, not downtime (runs are written behind: wait for them).
    type Uptime = { failures: number; maintenance: { seconds: number; runs: number; failures: number } };
    const uptime = () => api("GET", `/v1/monitors/${monitor}/uptime`) as Promise<Uptime>;
    await until("failing runs counted in maintenance", async () => (await uptime()).maintenance.failures > 0);
    const inside = await uptime();
    expect(inside.failures).toBe(0);
    expect(inside.maintenance.seconds).toBeGreaterThan(0);

    // The page while the window is open: the component is under maintenance, the window and the page's
    // own scheduled maintenance are listed, in every form.
    type PageJson = {
      data: {
        status: string;
        components: { name: string; status: string }[];
        incidents: { id: string; title: string; status: string }[];
        maintenance: { title: string }[];
      };
    };
    const json = async () => JSON.parse((await publicGet(`/status/${slug}/status.json`)).text) as PageJson;
    await until(
      "the page showing maintenance",
      async () => (await json()).data.components[0]?.status === "maintenance",
    );
    expect((await json()).data.maintenance.map((m) => m.title)).toEqual([
      "Database failover",
      "Payment provider migration",
    ]);
    const during = await publicGet(`/status/${slug}`);
    expect(during.type).toMatch(/^text\/html/);
    expect(during.text).not.toMatch(/<script/i);
    for (const text of [
      "Under maintenance",
      "Scheduled maintenance",
      "Database failover",
      "Payment provider",
    ])
      expect(during.text).toContain(text);
    const badge = async (which: string) => {
      const svg = await publicGet(`/status/${slug}/badge/${which}.svg`);
      expect(svg.type).toBe("image/svg+xml");
      expect(svg.text).toMatch(/^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"[^>]*>.*<\/svg>$/s);
      return svg.text;
    };
    expect(await badge("status")).toContain("status: under maintenance");

    // The work ends early (a short window) with the site still down: now the outage alerts.
    await api("PATCH", `/v1/maintenance-windows/${window.id}`, {
      ends_at: new Date(Date.now() + 1000).toISOString(),
    });
    await until("the down alert after the window", () => hooks("/maint").length > 0, 30_000);
    expect(hooks("/maint").map((h) => [h.type, h.data.monitor?.id])).toEqual([["monitor.down", monitor]]);
    expect(await stateOf(monitor)).toBe("down");

    // The page after the window: the outage's incident (opened from it), the scheduled maintenance left.
    await until("the page showing the outage's incident", async () => {
      const d = (await json()).data;
      return d.components[0]?.status === "major_outage" && d.incidents.length > 0;
    });
    const after = (await json()).data;
    expect(after.status).toBe("major_outage");
    expect(after.incidents).toMatchObject([{ title: "Shop is down", status: "investigating" }]);
    expect(after.maintenance.map((m) => m.title)).toEqual(["Payment provider migration"]);
    const html = (await publicGet(`/status/${slug}`)).text;
    expect(html).not.toMatch(/<script/i);
    for (const text of ["Major outage", "Shop is down", "Scheduled maintenance", "Payment provider"])
      expect(html).toContain(text);
    expect(html).not.toContain("Database failover");
    const feed = await publicGet(`/status/${slug}/feed.atom`);
    expect(feed.type).toMatch(/^application\/atom\+xml/);
    expect(feed.text).toMatch(
      /^<\?xml [^>]*\?>\s*<feed xmlns="http:\/\/www.w3.org\/2005\/Atom">.*<\/feed>$/s,
    );
    expect(feed.text).toContain(`<id>urn:vantage:incident:${after.incidents[0]?.id}</id>`);
    expect(feed.text).toContain("<title>Shop is down</title>");
    expect(await badge("status")).toContain("status: major outage");
    expect(await badge("uptime")).toMatch(/uptime 90d: \d+\.\d\d%/);
  }, 150_000);

  it("an unacknowledged down alert escalates to the second channel; one acknowledged by its link does not", async () => {
    const site = loopbackSite();
    await site.start();
    const monitor = await watched("API", site.url);
    const [a, b] = [await webhook("a"), await webhook("b")];
    await api("POST", "/v1/alert-policies", {
      name: "api on-call",
      monitor_id: monitor,
      channel_ids: [a],
      on_up: false,
      escalation: [{ after_minutes: STEP_MINUTES, channel_ids: [b] }],
    });
    await until("the monitor up", async () => (await stateOf(monitor)) === "up", 60_000);

    // Nobody acknowledges the first outage: A hears it, then B after the step's time.
    await site.stop();
    await until("A hears the outage", () => hooks("/a").length === 1, 60_000);
    await until("the step tells B", () => hooks("/b").length === 1, 30_000);
    const [firstA] = hooks("/a");
    const [firstB] = hooks("/b");
    expect(firstA?.type).toBe("monitor.down");
    expect(firstB?.type).toBe("monitor.down");
    expect(firstB?.data.monitor?.id).toBe(monitor);
    const eventOf = (link: string | undefined) => new URL(link ?? "http://x/").pathname.split(".")[0];
    expect(eventOf(firstB?.data.ack_url)).toBe(eventOf(firstA?.data.ack_url));

    // The next outage: acknowledged through the link in A's message as soon as it arrives.
    await site.start();
    await until("the monitor up again", async () => (await stateOf(monitor)) === "up", 60_000);
    await site.stop();
    await until("A hears the second outage", () => hooks("/a").length === 2, 60_000);
    const link = hooks("/a")[1]?.data.ack_url ?? "";
    expect(link).toMatch(/\/v1\/alert-ack\/evt_[0-9a-z]+\.\d+\.[\w-]+$/);
    const ack = await call(api0, "POST", new URL(link).pathname);
    expect(ack.status).toBe(200);
    const eventId = ack.body.data.event_id as string;
    // The events straight from the table: their detail carries the evidence, whose shape is not this test's.
    const events = () =>
      sql<{ id: string; type: string; acknowledged_by: string | null; created_at: Date }[]>`
        select id, type, acknowledged_by, created_at from alert_events
        where monitor_id = ${monitor} order by created_at`;
    const acked = (await events()).find((e) => e.id === eventId);
    expect(acked).toMatchObject({ type: "down", acknowledged_by: "link" });
    // Past the step's time (from the event) and a few notifier rounds more: B heard nothing new.
    const due = new Date(acked?.created_at ?? 0).getTime() + STEP_MINUTES * MINUTE_MS;
    await new Promise((r) => setTimeout(r, Math.max(0, due - Date.now()) + 3000));
    expect(hooks("/b")).toHaveLength(1);
    expect((await events()).map((e) => e.type)).toEqual(["down", "escalation", "down"]);
  }, 150_000);
});
