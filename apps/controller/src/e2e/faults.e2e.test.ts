import { type PostgresCluster, startPostgresCluster } from "@vantage/testing";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Cluster, type Controller, shortLeases, startCluster } from "./cluster.js";
import { type Call, call } from "./http-call.js";
import { startTargets, type Targets } from "./targets.js";

/**
 * The fault suite, with real processes: a PostgreSQL cluster of its own (stopped and started), nats-server
 * with per-agent credentials, three agents, and two controllers on them (Form A and Form B). Each scenario
 * runs traffic through a fault and asserts what the callers saw (statuses, how fast) and what is stored
 * afterwards: every answered result present, nothing duplicated, no task left unfinished. The controller
 * killed mid-task is one of its own, so the NATS restart runs while that test waits out the dead
 * controller's lease (gates order the two where they would meet).
 */
const agents = [
  { id: "ft-fra", country: "DE", region: "eu-central", provider: "hetzner" },
  { id: "ft-nyc", country: "US", region: "us-east", provider: "digitalocean" },
  { id: "ft-sgp", country: "SG", region: "ap-southeast", provider: "vultr" },
];
const ids = agents.map((a) => a.id);

describe("fault suite (real processes)", () => {
  let pg: PostgresCluster;
  let cluster: Cluster;
  let targets: Targets;
  let formA: Controller;
  let formB: Controller;
  /** The Form A controller the kill scenario kills and restarts; the traffic goes to `formA`. */
  let formK: Controller;
  let sql: postgres.Sql;

  beforeAll(async () => {
    [pg, targets] = await Promise.all([startPostgresCluster(), startTargets()]);
    cluster = await startCluster(agents, { databaseUrl: pg.url });
    const env = { VANTAGE_REGISTER_LIMIT_IP: "0", VANTAGE_REGISTER_LIMIT_EMAIL: "0", ...shortLeases };
    // Two side by side (migrations are safe from several controllers at once), not three: each start
    // compiles the controller through tsx, and three at once on a loaded machine can pass the minute.
    [formB, formA] = await Promise.all([
      cluster.startController({ ...env, VANTAGE_API_FORM: "b" }),
      cluster.startController({ ...env, VANTAGE_API_FORM: "a" }),
    ]);
    formK = await cluster.startController({ ...env, VANTAGE_API_FORM: "a" });
    await Promise.all([formB, formA, formK].map((c) => cluster.waitForNodes(c.url, ids)));
    sql = postgres(pg.url, { max: 2, onnotice: () => {} });
  }, 300_000);
  afterAll(async () => {
    await sql?.end({ timeout: 5 });
    await formK?.stop();
    await formA?.stop();
    await formB?.stop();
    await targets?.close();
    await cluster?.stop();
    await pg?.destroy();
  });

  const tcpA = () => ({ target: `127.0.0.1:${targets.tcpPort}`, node_ids: ids });
  const tcpB = () => ({ host: "127.0.0.1", port: targets.tcpPort, nodes: ids });

  /** Form A and B probes, and routes that need the database, every `everyMs` until `stop` resolves. */
  async function traffic(stop: Promise<void>, everyMs = 100) {
    const calls = { b: [] as Call[], a: [] as Call[], db: [] as Call[] };
    let done = false;
    void stop.then(() => {
      done = true;
    });
    let n = 0;
    while (!done) {
      const [b, a, db] = await Promise.all([
        call(formB, "POST", "/v1/probe/tcp", tcpB()),
        call(formA, "POST", "/v1/probe/tcp", tcpA()),
        n % 2 === 0
          ? call(formB, "POST", "/v1/auth/register", {
              email: `fault-${Date.now()}-${n}@example.com`,
              password: "correct horse battery",
            })
          : call(formA, "GET", "/readyz"),
      ]);
      calls.b.push(b);
      calls.a.push(a);
      calls.db.push(db);
      n++;
      await new Promise((r) => setTimeout(r, everyMs));
    }
    return calls;
  }

  async function pollFinished(to: Controller, id: string, timeoutMs = 60_000): Promise<Call> {
    const end = Date.now() + timeoutMs;
    for (;;) {
      const res = await call(to, "GET", `/v1/probe/tasks/${id}`);
      if (res.status === 200 && ["done", "failed"].includes(res.body.data.status)) return res;
      if (Date.now() > end) throw new Error(`task ${id} not finished: ${JSON.stringify(res.body)}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  /**
   * Every answered task is stored with one row per node, and none is left unfinished. Form A tasks end
   * `done`; with `nodesMayFail` (the broker itself was away) a task may also end `failed`, as documented,
   * but only when every node's entry carries a node-level error (no node could be reached).
   */
  async function assertStored(calls: { a: Call[]; b: Call[] }, opts: { nodesMayFail?: boolean } = {}) {
    const answeredB = calls.b.filter((c) => c.status === 200).map((c) => c.body.data.task_id as string);
    const acceptedA = calls.a.filter((c) => c.status === 202).map((c) => c.body.data.task_id as string);
    for (const id of acceptedA) {
      const task = await pollFinished(formA, id);
      expect(task.body.data.results).toHaveLength(ids.length);
      if (opts.nodesMayFail && task.body.data.status === "failed") {
        for (const r of task.body.data.results as { error?: { code: string } }[])
          expect(["node_offline", "node_timeout", "node_error", "transport_lost"], `Form A ${id}`).toContain(
            r.error?.code,
          );
      } else expect(task.body.data.status, `Form A ${id}`).toBe("done");
    }
    // Form B writes land behind the answers: give the writer a moment after the database is back.
    const all = [...answeredB, ...acceptedA];
    let rows: { task_id: string; n: number }[] = [];
    for (let i = 0; i < 100; i++) {
      rows = await sql<{ task_id: string; n: number }[]>`
        select task_id, count(*)::int as n from probe_results where task_id in ${sql(all)} group by task_id`;
      if (rows.length === all.length) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(rows.length, "every answered task is stored").toBe(all.length);
    for (const r of rows) expect(r.n, `results of ${r.task_id}`).toBe(ids.length);
    const unfinished = await sql`
      select id from probe_tasks where id in ${sql(all)} and status not in ('done', 'failed')`;
    expect(unfinished).toHaveLength(0);
    return { answeredB: answeredB.length, acceptedA: acceptedA.length };
  }

  it.each([5, 30])(
    "PostgreSQL stopped %i s during Form A and B traffic: 503 within a second, every answer stored once",
    async (seconds) => {
      let end!: () => void;
      const ended = new Promise<void>((r) => {
        end = r;
      });
      const running = traffic(ended);
      await new Promise((r) => setTimeout(r, 1000));
      await pg.stop();
      const stoppedAt = Date.now();
      await new Promise((r) => setTimeout(r, seconds * 1000));
      await pg.start();
      const backAt = Date.now();
      await new Promise((r) => setTimeout(r, 2000));
      end();
      const calls = await running;

      const during = (c: Call) => c.at > stoppedAt + 300 && c.at - c.ms < backAt;
      // Routes that need the database answer 503 `unavailable` quickly while it is away, never a 500.
      const dbCalls = calls.db.filter(during);
      expect(dbCalls.length).toBeGreaterThan(seconds);
      for (const c of dbCalls) {
        expect([503, 201, 200]).toContain(c.status);
        if (c.status === 503) expect(c.body.error.code).toBe("unavailable");
        expect(c.ms).toBeLessThan(1500);
      }
      expect(dbCalls.filter((c) => c.status === 503).length).toBeGreaterThan(dbCalls.length / 2);
      // Form A cannot store a new task: 503 at once. Form B keeps answering from the nodes.
      for (const c of calls.a.filter(during)) {
        expect([202, 503]).toContain(c.status);
        expect(c.ms).toBeLessThan(1500);
      }
      const bDuring = calls.b.filter(during);
      expect(bDuring.filter((c) => c.status === 200).length).toBeGreaterThan(seconds);
      for (const c of [...calls.a, ...calls.b, ...calls.db])
        expect(c.status).toBeLessThan(500 + (c.status === 503 ? 4 : 0));

      const stored = await assertStored(calls);
      expect(stored.answeredB).toBeGreaterThan(seconds * 2);
      // And it serves normally again.
      expect((await call(formB, "GET", "/readyz")).status).toBe(200);
    },
    120_000,
  );

  // The kill scenario waits about a lease lifetime (8 s here) for the sweeper; the NATS restart runs meanwhile,
  // once the killed controller's replacement is up (it connects at start), and before the kill scenario's
  // last probe (which needs every node).
  const replaced = gate();
  const natsBack = gate();

  it.concurrent("NATS restarted during traffic: answers are 200 or a prompt 503, and every answer is stored once", async () => {
    await replaced.opened;
    try {
      await natsRestart();
    } finally {
      natsBack.open();
    }
  }, 120_000);

  async function natsRestart() {
    let end!: () => void;
    const ended = new Promise<void>((r) => {
      end = r;
    });
    const running = traffic(ended);
    await new Promise((r) => setTimeout(r, 1000));
    await cluster.nats.restart();
    // Traffic goes on until a probe succeeds on every node again (both sides have reconnected).
    const restarted = Date.now();
    for (;;) {
      const probe = await call(formB, "POST", "/v1/probe/tcp", tcpB());
      if (probe.status === 200 && probe.body.data.results.every((r: { success: boolean }) => r.success))
        break;
      expect(Date.now() - restarted, "probes work again within 30 s").toBeLessThan(30_000);
      await new Promise((r) => setTimeout(r, 250));
    }
    await new Promise((r) => setTimeout(r, 1000));
    end();
    const calls = await running;
    for (const c of [...calls.a, ...calls.b]) expect([200, 202, 503]).toContain(c.status);
    // Answers during the reconnect may carry node errors (Form B), or a Form A task no node could be
    // reached for may end failed; they are stored like any other.
    const stored = await assertStored({ a: calls.a, b: calls.b }, { nodesMayFail: true });
    // Several answers went through the fault, so the checks above are not empty: 6–20 on a quiet machine,
    // 5 with two CPU hogs and another test file beside this one.
    expect(stored.answeredB).toBeGreaterThanOrEqual(3);
  }

  it.concurrent("a Form A controller killed mid-task: its task fails soon after its deadline, on a restarted controller", async () => {
    try {
      await controllerKilled();
    } finally {
      replaced.open();
    }
  }, 120_000);

  async function controllerKilled() {
    const created = await call(formK, "POST", "/v1/probe/http", {
      target: `${targets.httpUrl}/slow?ms=3000`,
      node_ids: ids,
      params: { timeout_ms: 5000 },
    });
    expect(created.status).toBe(202);
    const id = created.body.data.task_id as string;
    await new Promise((r) => setTimeout(r, 500));
    await formK.kill("SIGKILL");
    formK = await cluster.startController({ VANTAGE_API_FORM: "a", ...shortLeases });
    replaced.open();
    const started = Date.now();
    const task = await pollFinished(formK, id, 60_000);
    // The task's deadline (5 s + 1 s) and the dead controller's lease (8 s) have passed, and the restarted
    // controller's sweeper has seen the database for a whole lease lifetime before judging leases.
    expect(task.body.data.status).toBe("failed");
    expect(Date.now() - started).toBeLessThan(45_000);
    const rows = await sql`select node_id from probe_results where task_id = ${id}`;
    expect(rows.length).toBeLessThanOrEqual(ids.length);
    expect(new Set(rows.map((r) => r.node_id)).size).toBe(rows.length);
    // The new controller serves Form A tasks to the end (once NATS is back from its restart).
    await natsBack.opened;
    const again = await call(formK, "POST", "/v1/probe/tcp", tcpA());
    expect((await pollFinished(formK, again.body.data.task_id)).body.data.status).toBe("done");
  }

  it("an agent killed mid-probe: its entry fails within the deadline and is stored; the others succeed", async () => {
    const pending = call(formB, "POST", "/v1/probe/http", {
      url: `${targets.httpUrl}/slow?ms=1500`,
      nodes: ids,
      // 3 s: twice the live nodes' 1.5 s; the dead node's entry waits out this budget (no node says it died).
      timeout: 3,
    });
    await new Promise((r) => setTimeout(r, 400));
    cluster.agents.get("ft-sgp")?.kill("SIGKILL");
    const res = await pending;
    expect(res.status).toBe(200);
    expect(res.ms).toBeLessThan(3000 + 1000 + 500);
    const byNode = new Map(res.body.data.results.map((r: { node_id: string }) => [r.node_id, r]));
    expect((byNode.get("ft-sgp") as { success: boolean }).success).toBe(false);
    expect((byNode.get("ft-fra") as { success: boolean }).success).toBe(true);
    await assertStored({ a: [], b: [res] });
  }, 60_000);
});

/** A one-way signal between two concurrent tests: `opened` resolves at the first `open()`. */
function gate(): { open: () => void; opened: Promise<void> } {
  let open!: () => void;
  const opened = new Promise<void>((r) => {
    open = r;
  });
  return { open, opened };
}
