import { sql } from "kysely";
import { pino } from "pino";
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { defaultPlans } from "../../lib/plans.js";
import { newUser, type TestUser } from "../../testing/accounts.js";
import { insertMonitor } from "../../testing/monitor-rows.js";
import { dbKinds, forms, type TestApp } from "../../testing/test-app.js";
import { useTestDb } from "../../testing/use-test-db.js";
import type { MonitorsContext } from "./context.js";
import { createRollupJob } from "./results-service.js";
import { ROLLUP_LOCK_KEY } from "./rollups.js";

const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;
/** A UTC midnight for the roll-up scenarios. */
const D = Date.UTC(2026, 0, 5);
const iso = (t: number) => new Date(t).toISOString();

/** A node's outcome: a latency passes, `false` fails. */
type Node = number | false;

describe.each(dbKinds)("monitor results on %s", (kind) => {
  const db = useTestDb(kind);
  let t: TestApp;
  let owner: TestUser;
  let ctx: MonitorsContext;
  let n = 0;

  beforeAll(async () => {
    t = db.app("a");
    owner = await newUser(t, "results");
    ctx = {
      db: t.db.kysely,
      log: pino({ level: "silent" }),
      form: "a",
      plans: defaultPlans,
      allowPrivateTargets: false,
      now: Date.now,
    };
  });

  // The roll-up progress is global: every test starts from empty results.
  beforeEach(async () => {
    await t.db.kysely.deleteFrom("monitor_runs").execute();
    await t.db.kysely.deleteFrom("monitor_rollups").execute();
  });

  /** A monitor row that no scheduler picks (due in 2100); returns its id and seq. */
  async function addMonitor(ownerId = owner.userId, extra: { state?: "down"; changedAt?: Date } = {}) {
    const id = `mon_res_${kind}_${++n}`;
    const seq = await insertMonitor(t.db.kysely, id, ownerId, {
      interval_s: 30,
      ...(extra.state ? { state: extra.state, state_changed_at: extra.changedAt ?? null } : {}),
    });
    return { id, seq };
  }

  /** One run: node `n<i>` per entry. */
  async function addRun(seq: string, slot: number, nodes: Node[]) {
    await t.db.kysely
      .insertInto("monitor_runs")
      .values(
        nodes.map((v, i) => ({
          monitor_seq: seq,
          slot: new Date(slot),
          node_id: `n${i}`,
          success: v !== false,
          latency_ms: v === false ? null : v,
          error_code: v === false ? "connect_timeout" : null,
        })),
      )
      .execute();
  }

  async function buckets(seq?: string) {
    let q = t.db.kysely.selectFrom("monitor_rollups").selectAll();
    if (seq) q = q.where("monitor_seq", "=", seq);
    const rows = await q.orderBy("monitor_seq").orderBy("period").orderBy("bucket").execute();
    return rows.map((r) => ({
      ...r,
      monitor_seq: String(r.monitor_seq),
      bucket: iso(new Date(r.bucket).getTime()),
    }));
  }

  const bucket = async (seq: string, period: string, at: number) =>
    (await buckets(seq)).find((b) => b.period === period && b.bucket === iso(at));

  describe("roll-ups", () => {
    it("rolls minutes, hours and UTC days up by the majority rule; settled minutes only; idempotent", async () => {
      const a = await addMonitor();
      const b = await addMonitor();
      await addRun(a.seq, D + HOUR, [10, 20, false]); // passes (2 of 3)
      await addRun(a.seq, D + HOUR + 30_000, [30, false, false]); // fails; its passing node still counts
      await addRun(a.seq, D + HOUR + MIN, [40, 50, 60]);
      await addRun(b.seq, D + HOUR, [5, false]); // a tie fails
      await addRun(b.seq, D + HOUR + MIN, [false, false]);
      await addRun(a.seq, D - HOUR, [100, 100, 100]); // the day before
      const now = D + 2 * HOUR + 10 * MIN;
      await addRun(a.seq, now - 2 * MIN, [7, 7, 7]); // its minute has not settled yet

      const job = createRollupJob(ctx, { retentionDays: 7 });
      const first = await job.runOnce(new Date(now));
      expect(first).toMatchObject({ skipped: false, more: false, rolled: { minute: 3, hour: 2, day: 1 } });

      expect(await bucket(a.seq, "minute", D + HOUR)).toMatchObject({ runs: 2, failures: 1 });
      const m1 = await bucket(a.seq, "minute", D + HOUR);
      expect(m1?.latency_p50).toBeCloseTo(20); // over 10, 20, 30
      expect(m1?.latency_p95).toBeCloseTo(29);
      expect(await bucket(a.seq, "minute", D + HOUR + MIN)).toMatchObject({ runs: 1, failures: 0 });
      expect(await bucket(b.seq, "minute", D + HOUR)).toMatchObject({ runs: 1, failures: 1, latency_p50: 5 });
      expect(await bucket(b.seq, "minute", D + HOUR + MIN)).toMatchObject({
        runs: 1,
        failures: 1,
        latency_p50: null,
        latency_p95: null,
      });
      expect(await bucket(a.seq, "minute", now - 2 * MIN)).toBeUndefined();

      // Hours from minutes: runs and failures summed, percentiles weighted by runs ((20·2 + 50·1) / 3).
      const h = await bucket(a.seq, "hour", D + HOUR);
      expect(h).toMatchObject({ runs: 3, failures: 1 });
      expect(h?.latency_p50).toBeCloseTo(30);
      expect(h?.latency_p95).toBeCloseTo(39);
      expect(await bucket(b.seq, "hour", D + HOUR)).toMatchObject({ runs: 2, failures: 2, latency_p50: 5 });
      expect(await bucket(a.seq, "hour", D + 2 * HOUR)).toBeUndefined(); // not complete
      expect(await bucket(a.seq, "day", D - DAY)).toMatchObject({ runs: 1, failures: 0, latency_p50: 100 });
      expect(await bucket(a.seq, "day", D)).toBeUndefined();

      // Again: nothing new to do, nothing changes.
      const before = await buckets();
      expect(await job.runOnce(new Date(now))).toMatchObject({ rolled: { minute: 0, hour: 0, day: 0 } });
      expect(await buckets()).toEqual(before);
      // The progress lost (as if a crash came before it was stored): the same periods are rolled up again into
      // the same rows.
      await t.db.kysely.deleteFrom("monitor_rollups").where("monitor_seq", "=", "0").execute();
      expect((await createRollupJob(ctx, { retentionDays: 7 }).runOnce(new Date(now))).rolled.minute).toBe(3);
      expect(await buckets()).toEqual(before);

      // Later: the settled minute is rolled up, only it.
      const later = await job.runOnce(new Date(now + 5 * MIN));
      expect(later.rolled).toEqual({ minute: 1, hour: 0, day: 0 });
      expect(await bucket(a.seq, "minute", now - 2 * MIN)).toMatchObject({ runs: 1, latency_p50: 7 });
    });

    it("deletes raw runs past retention and buckets past their period's, in batches, keeping the rest", async () => {
      const a = await addMonitor();
      const now = D + 12 * HOUR;
      await addRun(a.seq, now - 8 * DAY, [1]);
      await addRun(a.seq, now - 6 * DAY, [2]);
      // 25,000 more old rows at one slot: three delete batches.
      await sql`
        insert into monitor_runs (monitor_seq, slot, node_id, success, latency_ms)
        select ${a.seq}, ${new Date(now - 8 * DAY + MIN)}, 'bulk' || i, true, 1 from generate_series(1, 25000) i`.execute(
        t.db.kysely,
      );
      const stale = [
        ["minute", now - 3 * DAY, now - 1 * DAY],
        ["hour", now - 91 * DAY, now - 89 * DAY],
        ["day", now - 401 * DAY, now - 399 * DAY],
      ] as const;
      for (const [period, gone, kept] of stale) {
        for (const at of [gone, kept]) {
          await t.db.kysely
            .insertInto("monitor_rollups")
            .values({ monitor_seq: a.seq, period, bucket: new Date(at), runs: 1, failures: 0 })
            .execute();
        }
      }

      const report = await createRollupJob(ctx, { retentionDays: 7 }).runOnce(new Date(now));
      expect(report.deleted.runs).toBe(25_001);
      const slots = await t.db.kysely.selectFrom("monitor_runs").select("slot").execute();
      expect(slots.map((r) => new Date(r.slot).getTime())).toEqual([now - 6 * DAY]);
      for (const [period, gone, kept] of stale) {
        expect(await bucket(a.seq, period, gone)).toBeUndefined();
        expect(await bucket(a.seq, period, kept)).toBeDefined();
      }
      // What was rolled up before the raw rows went stays, for as long as its period keeps it.
      expect(await bucket(a.seq, "day", now - 8 * DAY - 12 * HOUR)).toMatchObject({ runs: 2 });
      expect(await bucket(a.seq, "minute", now - 8 * DAY)).toBeUndefined();
    });

    // PostgreSQL only: PGlite is one process with one connection, so there is no other controller to exclude.
    if (kind === "postgres")
      it("skips the run while another controller holds the lock", async () => {
        const a = await addMonitor();
        await addRun(a.seq, D, [1]);
        const job = createRollupJob(ctx, { retentionDays: 7 });
        await t.db.kysely.transaction().execute(async (trx) => {
          await sql`select pg_advisory_xact_lock(${sql.lit(ROLLUP_LOCK_KEY)})`.execute(trx);
          expect(await job.runOnce(new Date(D + HOUR))).toMatchObject({
            skipped: true,
            rolled: { minute: 0 },
          });
        });
        expect((await job.runOnce(new Date(D + HOUR))).rolled.minute).toBe(1);
      });

    it("start() runs at once and stop() waits for the run", async () => {
      const a = await addMonitor();
      await addRun(a.seq, Date.now() - 10 * MIN, [1, 2, 3]);
      const job = createRollupJob(ctx, { retentionDays: 7, everyMs: 3_600_000 });
      await job.start();
      await job.stop();
      expect((await buckets(a.seq)).map((r) => r.period)).toContain("minute");
    });
  });

  describe.each(forms)("routes in form %s", (form) => {
    let app: TestApp;
    let other: TestUser;
    let user: TestUser;
    beforeAll(async () => {
      app = db.app(form);
      user = await newUser(app, "results");
      other = await newUser(app, "other");
    });

    it("GET /v1/monitors/{id}/results: newest runs first, one per slot, the majority's verdict", async () => {
      const m = await addMonitor(user.userId);
      const s = Math.floor(Date.now() / MIN) * MIN - 10 * MIN;
      await addRun(m.seq, s, [10, 20, 30]);
      await addRun(m.seq, s + MIN, [11, false]);
      await addRun(m.seq, s + 2 * MIN, [12.5, 13, false]);
      const res = await app.call("GET", `/v1/monitors/${m.id}/results?limit=2`, { headers: user.headers });
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual({
        monitor_id: m.id,
        gaps: [],
        items: [
          {
            slot: iso(s + 2 * MIN),
            success: true,
            nodes: [
              { node_id: "n0", success: true, latency_ms: 12.5, error_code: null },
              { node_id: "n1", success: true, latency_ms: 13, error_code: null },
              { node_id: "n2", success: false, latency_ms: null, error_code: "connect_timeout" },
            ],
          },
          {
            slot: iso(s + MIN),
            success: false,
            nodes: [
              { node_id: "n0", success: true, latency_ms: 11, error_code: null },
              { node_id: "n1", success: false, latency_ms: null, error_code: "connect_timeout" },
            ],
          },
        ],
      });
      const all = await app.call("GET", `/v1/monitors/${m.id}/results`, { headers: user.headers });
      expect(all.body.data.items.map((i: { slot: string }) => i.slot)).toEqual(
        [s + 2 * MIN, s + MIN, s].map(iso),
      );
      expect(all.body.data.items[2].nodes).toHaveLength(3);

      for (const limit of ["0", "101", "x"]) {
        const bad = await app.call("GET", `/v1/monitors/${m.id}/results?limit=${limit}`, {
          headers: user.headers,
        });
        expect(bad.status).toBe(400);
        expect(bad.body.error).toMatchObject({
          code: "validation_error",
          details: [{ path: "query.limit" }],
        });
      }
      const theirs = await app.call("GET", `/v1/monitors/${m.id}/results`, { headers: other.headers });
      expect(theirs.status).toBe(404);
      const unknown = await app.call("GET", "/v1/monitors/mon_nope/results", { headers: user.headers });
      expect(unknown.status).toBe(404);
      expect((await app.call("GET", `/v1/monitors/${m.id}/results`)).status).toBe(401);
    });

    it("GET /v1/monitors/{id}/results: stale spells among the runs are gaps, newest first", async () => {
      const m = await addMonitor(user.userId);
      const s = Math.floor(Date.now() / MIN) * MIN - 20 * MIN;
      await addRun(m.seq, s, [10]);
      await addRun(m.seq, s + MIN, [11]);
      // No run from s + 2 min: stale at s + 3.5 min until the run at s + 6 min decided again; stale once
      // more from s + 8 min, still.
      await addRun(m.seq, s + 6 * MIN, [12]);
      const change = (
        id: string,
        at: number,
        from: "up" | "unknown",
        to: "up" | "unknown",
        reason = null as null | "no_nodes" | "scheduler_behind",
      ) =>
        app.db.kysely
          .insertInto("monitor_state_changes")
          .values({
            id,
            monitor_id: m.id,
            slot: new Date(at),
            from_state: from,
            to_state: to,
            reason,
            alerted_at: new Date(),
          })
          .execute();
      await change(`msc_g1_${form}_${kind}`, s + 3.5 * MIN, "up", "unknown", "no_nodes");
      await change(`msc_g2_${form}_${kind}`, s + 6 * MIN, "unknown", "up");
      await change(`msc_g3_${form}_${kind}`, s + 8 * MIN, "up", "unknown", "scheduler_behind");

      const all = await app.call("GET", `/v1/monitors/${m.id}/results`, { headers: user.headers });
      expect(all.status).toBe(200);
      expect(all.body.data.items.map((i: { slot: string }) => i.slot)).toEqual(
        [s + 6 * MIN, s + MIN, s].map(iso),
      );
      expect(all.body.data.gaps).toEqual([
        { from: iso(s + 8 * MIN), to: null, reason: "scheduler_behind" },
        { from: iso(s + 3.5 * MIN), to: iso(s + 6 * MIN), reason: "no_nodes" },
      ]);
      // A list cut at its oldest run shows the spells from there on only.
      const newest = await app.call("GET", `/v1/monitors/${m.id}/results?limit=1`, { headers: user.headers });
      expect(newest.body.data.items.map((i: { slot: string }) => i.slot)).toEqual([iso(s + 6 * MIN)]);
      expect(newest.body.data.gaps).toEqual([
        { from: iso(s + 8 * MIN), to: null, reason: "scheduler_behind" },
      ]);
      const two = await app.call("GET", `/v1/monitors/${m.id}/results?limit=2`, { headers: user.headers });
      expect(two.body.data.gaps).toHaveLength(2);
    });

    it("an http run that failed on its status says which status, in results and uptime", async () => {
      const m = await addMonitor(user.userId);
      const slot = Math.floor(Date.now() / MIN) * MIN - 5 * MIN;
      await t.db.kysely
        .insertInto("monitor_runs")
        .values([
          {
            monitor_seq: m.seq,
            slot: new Date(slot),
            node_id: "n0",
            success: false,
            latency_ms: null,
            error_code: "unexpected_status",
            status_code: 500,
          },
          {
            monitor_seq: m.seq,
            slot: new Date(slot),
            node_id: "n1",
            success: false,
            latency_ms: null,
            error_code: "timeout",
          },
        ])
        .execute();
      const res = await app.call("GET", `/v1/monitors/${m.id}/results`, { headers: user.headers });
      expect(res.body.data.items[0].nodes).toEqual([
        {
          node_id: "n0",
          success: false,
          latency_ms: null,
          error_code: "unexpected_status",
          status_code: 500,
        },
        { node_id: "n1", success: false, latency_ms: null, error_code: "timeout" },
      ]);
      const up = await app.call("GET", `/v1/monitors/${m.id}/uptime`, { headers: user.headers });
      expect(up.body.data.nodes).toEqual([
        {
          node_id: "n0",
          state: "down",
          last_slot: iso(slot),
          error_code: "unexpected_status",
          status_code: 500,
        },
        { node_id: "n1", state: "down", last_slot: iso(slot), error_code: "timeout" },
      ]);
    });

    it("GET /v1/monitors/{id}/uptime: a fresh monitor's runs count at once", async () => {
      const changedAt = new Date(Date.now() - HOUR);
      const m = await addMonitor(user.userId, { state: "down", changedAt });
      const empty = await app.call("GET", `/v1/monitors/${m.id}/uptime`, { headers: user.headers });
      expect(empty.status).toBe(200);
      expect(empty.body.data).toMatchObject({
        window: "24h",
        runs: 0,
        failures: 0,
        uptime_percent: null,
        latency_p50_ms: null,
        latency_p95_ms: null,
        state: "down",
        state_changed_at: changedAt.toISOString(),
      });
      const to = Date.parse(empty.body.data.to);
      expect(Math.abs(to - Date.now())).toBeLessThan(60_000);
      expect(Date.parse(empty.body.data.from)).toBe(Math.floor((to - DAY) / HOUR) * HOUR);

      await addRun(m.seq, Date.now() - 30_000, [false, false, 40]);
      await addRun(m.seq, Date.now() - 60_000, [40, 40, false]);
      await addRun(m.seq, Date.now() - 90_000, [50, false]); // a tie fails
      const res = await app.call("GET", `/v1/monitors/${m.id}/uptime?window=7d`, { headers: user.headers });
      expect(res.body.data).toMatchObject({
        window: "7d",
        runs: 3,
        failures: 2,
        uptime_percent: 33.333,
        latency_p50_ms: 40, // over the passing nodes: 40, 40, 40, 50
        latency_p95_ms: 48.5,
      });
      // Per node: its newest run (the run 30 s ago).
      expect(
        res.body.data.nodes.map((n: { node_id: string; state: string; error_code: string | null }) => [
          n.node_id,
          n.state,
          n.error_code,
        ]),
      ).toEqual([
        ["n0", "down", "connect_timeout"],
        ["n1", "down", "connect_timeout"],
        ["n2", "up", null],
      ]);

      for (const w of ["1h", "24H", ""]) {
        const bad = await app.call("GET", `/v1/monitors/${m.id}/uptime?window=${w}`, {
          headers: user.headers,
        });
        expect(bad.status).toBe(400);
        expect(bad.body.error.details[0].path).toBe("query.window");
      }
      expect((await app.call("GET", `/v1/monitors/${m.id}/uptime`, { headers: other.headers })).status).toBe(
        404,
      );
      expect((await app.call("GET", "/v1/monitors/mon_nope/uptime", { headers: user.headers })).status).toBe(
        404,
      );
      expect((await app.call("GET", `/v1/monitors/${m.id}/uptime`)).status).toBe(401);
    });

    it("GET /v1/monitors/{id}/uptime: hour roll-ups plus the runs not rolled up yet, each run once", async () => {
      const m = await addMonitor(user.userId);
      const h0 = Math.floor(Date.now() / HOUR) * HOUR - 2 * HOUR;
      for (const k of [0, 15, 30]) await addRun(m.seq, h0 + k * MIN, [10, 10, 10]);
      await addRun(m.seq, h0 + 45 * MIN, [10, false, false]);
      await addRun(m.seq, Date.now() - 5 * MIN, [30, 30, 30]);
      await addRun(m.seq, Date.now() - 4 * MIN, [30, 30, 30]);
      const report = await createRollupJob(ctx, { retentionDays: 7 }).runOnce();
      expect(report.rolled.hour).toBeGreaterThanOrEqual(1);
      expect(await bucket(m.seq, "hour", h0)).toMatchObject({ runs: 4, failures: 1 });

      const res = await app.call("GET", `/v1/monitors/${m.id}/uptime?window=24h`, { headers: user.headers });
      // The hour's p50 (10, over 4 runs) and the newer runs' (30, over 2) weighted by runs: (40 + 60) / 6.
      expect(res.body.data).toMatchObject({
        runs: 6,
        failures: 1,
        uptime_percent: 83.333,
        latency_p50_ms: 16.7,
      });
    });
  });
});
