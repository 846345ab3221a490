import { beforeAll, describe, expect, it } from "vitest";
import { newUser, type TestUser } from "../../testing/accounts.js";
import { dbKinds, forms, type TestApp } from "../../testing/test-app.js";
import { useTestDb } from "../../testing/use-test-db.js";
import type { MonitorsContext } from "./context.js";
import { createRollupJob } from "./results-service.js";
import { DAY, HOUR, iso, MIN, useResultRows } from "./testing/result-rows.js";

/**
 * Monitor results through the API in each form: the runs newest first with gaps where the state was
 * stale, and the uptime from hour roll-ups plus the runs not rolled up yet.
 */
describe.each(dbKinds)("monitor results on %s", (kind) => {
  const db = useTestDb(kind);
  const rows = useResultRows(db, kind);
  const { addMonitor, addRun, bucket } = rows;
  let t: TestApp;
  let ctx: MonitorsContext;
  beforeAll(() => {
    ({ t, ctx } = rows);
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
