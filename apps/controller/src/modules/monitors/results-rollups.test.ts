import { sql } from "kysely";
import { beforeAll, describe, expect, it } from "vitest";
import { dbKinds, type TestApp } from "../../testing/test-app.js";
import { useTestDb } from "../../testing/use-test-db.js";
import type { MonitorsContext } from "./context.js";
import { createRollupJob } from "./results-service.js";
import { ROLLUP_LOCK_KEY } from "./rollups.js";
import { D, DAY, HOUR, MIN, useResultRows } from "./testing/result-rows.js";

/**
 * The roll-up job over monitor results: minutes, hours and UTC days rolled up by the majority rule,
 * retention in batches, the lock between controllers, start and stop.
 */
describe.each(dbKinds)("monitor results on %s", (kind) => {
  const db = useTestDb(kind);
  const rows = useResultRows(db, kind);
  const { addMonitor, addRun, buckets, bucket } = rows;
  let t: TestApp;
  let ctx: MonitorsContext;
  beforeAll(() => {
    ({ t, ctx } = rows);
  });

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
});
