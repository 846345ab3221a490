import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loopbackSite } from "../testing/loopback-site.js";
import { planLimitsEnv } from "../testing/plan-limits.js";
import { checkAnswer } from "../testing/test-app.js";
import { until } from "../testing/until.js";
import { type Cluster, type Controller, startCluster } from "./cluster.js";

/**
 * Monitors end to end with real processes: nats-server, 2 agents, 2 controllers both running the scheduler
 * role on one PostgreSQL. A 1 s HTTP monitor on a loopback server goes down when the server stops, up when
 * it is back; pause and delete stop a monitor's runs; and over more than 60 s no slot runs twice. The pause,
 * resume and delete run on a second monitor inside the first one's 60 s, not after them.
 */
const agents = [
  { id: "mo-fra", country: "DE", region: "eu-central", provider: "hetzner" },
  { id: "mo-nyc", country: "US", region: "us-east", provider: "digitalocean" },
];
const ids = agents.map((a) => a.id);

describe("monitors across two controllers (real processes)", () => {
  let cluster: Cluster;
  let a: Controller;
  let b: Controller;
  let sql: postgres.Sql;
  let headers: Record<string, string>;

  const site = loopbackSite();

  beforeAll(async () => {
    cluster = await startCluster(agents);
    const env = {
      VANTAGE_API_FORM: "b",
      VANTAGE_REGISTER_LIMIT_IP: "0",
      VANTAGE_SCHEDULER_TICK_MS: "100",
      VANTAGE_PLAN_LIMITS: planLimitsEnv({ free: { min_monitor_interval_s: 1 } }),
    };
    [a, b] = await Promise.all([cluster.startController(env), cluster.startController(env)]);
    await cluster.waitForNodes(a.url, ids);
    await cluster.waitForNodes(b.url, ids);
    sql = postgres(cluster.db.url, { max: 2, onnotice: () => {} });
    await site.start();
    const reg = await fetch(`${a.url}/v1/auth/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: `mon-${Date.now()}@example.com`, password: "correct horse battery" }),
    });
    const token = ((await reg.json()) as { data: { access_token: string } }).data.access_token;
    headers = { authorization: `Bearer ${token}`, "content-type": "application/json" };
  }, 300_000);
  afterAll(async () => {
    await sql?.end({ timeout: 5 });
    await site.stop();
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
  const stateOf = async (id: string) => (await api(b, "GET", `/v1/monitors/${id}`)).body.data.state;
  const runs = async (id: string) => {
    const rows = await sql<{ slot: Date; n: number; failed: number }[]>`
      select r.slot, count(*)::int as n, count(*) filter (where not r.success)::int as failed
      from monitor_runs r join monitors m on m.seq = r.monitor_seq
      where m.id = ${id} group by r.slot order by r.slot`;
    return rows.map((r) => ({ slot: new Date(r.slot).getTime(), nodes: r.n, failed: r.failed }));
  };
  const metric = async (url: string, name: string) => {
    const text = await (await fetch(`${url}/metrics`)).text();
    const line = text.split("\n").find((l) => l.startsWith(`${name} `));
    return Number(line?.split(" ")[1] ?? Number.NaN);
  };

  it("down after 2 failing runs, up again, paused and deleted stop runs; no slot runs twice in 60 s", async () => {
    const create = async (name: string) => {
      const created = await api(a, "POST", "/v1/monitors", {
        name,
        type: "http",
        url: site.url,
        interval: 1,
        config: { nodes: ids },
      });
      expect(created.status).toBe(201);
      return created.body.data.id as string;
    };
    const id = await create("loopback site");
    const startedAt = Date.now();
    await until("up", async () => (await stateOf(id)) === "up");

    await site.stop();
    const stoppedAt = Date.now();
    await until("down", async () => (await stateOf(id)) === "down");
    // Down on the second failing run: two failing slots, not more. A slot due just before the stop may
    // have run just after it (a loaded machine): failing slots are counted, not slots after the stop.
    const failing = (await runs(id)).filter((r) => r.slot > stoppedAt - 2000 && r.failed > 0);
    expect(failing.length).toBeGreaterThanOrEqual(2);
    expect(failing.length).toBeLessThanOrEqual(4);

    await site.start();
    await until("up again", async () => (await stateOf(id)) === "up");
    const changes = await sql<{ from_state: string; to_state: string }[]>`
      select from_state, to_state from monitor_state_changes where monitor_id = ${id} order by slot`;
    expect(changes.map((c) => `${c.from_state}→${c.to_state}`)).toEqual(["unknown→up", "up→down", "down→up"]);

    // Pause, resume and delete a second monitor while the first keeps running past 60 s.
    await pausedAndDeleted(await create("paused and deleted"));
    await new Promise((r) => setTimeout(r, Math.max(0, startedAt + 62_000 - Date.now())));
    // Then look at every slot the first one had.
    const all = await runs(id);
    for (const r of all) expect(r.nodes).toBe(2);
    const gaps = all.slice(1).map((r, i) => r.slot - (all[i] as { slot: number }).slot);
    for (const g of gaps) expect(g % 1000).toBe(0);
    expect(gaps.filter((g) => g === 1000).length).toBeGreaterThan(gaps.length * 0.9);
    expect(all.length).toBeGreaterThanOrEqual(55);
    for (const c of [a, b]) expect(await metric(c.url, "vantage_monitor_duplicate_rows_total")).toBe(0);
    const byA = await metric(a.url, "vantage_monitor_runs_total");
    const byB = await metric(b.url, "vantage_monitor_runs_total");
    expect(byA + byB).toBeGreaterThanOrEqual(all.length);
  }, 150_000);

  /** Paused, a monitor has no more runs; resumed, it runs again; deleted, none of its runs appear. */
  async function pausedAndDeleted(id: string) {
    await until("running", async () => (await runs(id)).length > 0);
    expect((await api(b, "POST", `/v1/monitors/${id}/pause`)).body.data).toEqual({
      id,
      status: "paused",
    });
    await new Promise((r) => setTimeout(r, 1500)); // a run already on its way may still land
    const atPause = (await runs(id)).length;
    await new Promise((r) => setTimeout(r, 3000));
    expect((await runs(id)).length).toBe(atPause);

    expect((await api(a, "POST", `/v1/monitors/${id}/resume`)).body.data).toEqual({
      id,
      status: "active",
    });
    await until("running again", async () => (await runs(id)).length > atPause);
    const seqOf = await sql<{ seq: string }[]>`select seq::text as seq from monitors where id = ${id}`;
    const seq = (seqOf[0] as { seq: string }).seq;
    const stored = async () => {
      const rows = await sql<{ n: number }[]>`
        select count(*)::int as n from monitor_runs where monitor_seq = ${seq}`;
      return (rows[0] as { n: number }).n;
    };
    expect((await api(a, "DELETE", `/v1/monitors/${id}`)).status).toBe(200);
    await new Promise((r) => setTimeout(r, 1500));
    const n = await stored();
    await new Promise((r) => setTimeout(r, 3000));
    expect(await stored()).toBe(n);
  }
});
