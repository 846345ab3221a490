import type { Kysely } from "kysely";
import { pino } from "pino";
import { describe, expect, it } from "vitest";
import type { Database } from "../../db/schema.js";
import { newUser } from "../../testing/accounts.js";
import { insertMonitor } from "../../testing/monitor-rows.js";
import { dbKinds } from "../../testing/test-app.js";
import { useTestDb } from "../../testing/use-test-db.js";
import { createMonitorResults } from "./results-service.js";
import { markStale, staleGraceS, staleOutlook, staleSpells, sweepPauseMs, unknownMs } from "./stale.js";
import { createBody } from "./testing/monitors-api.js";
import { RunWriter } from "./writer.js";

describe("stale spells", () => {
  it("unknown time is the spells' overlap with the window", () => {
    const spells = [
      { from: new Date(1000), to: new Date(3000), reason: "no_nodes" as const },
      { from: new Date(5000), to: null, reason: "scheduler_behind" as const },
    ];
    expect(unknownMs(spells, 2000, 6000)).toBe(1000 + 1000);
    expect(unknownMs(spells, 0, 1000)).toBe(0);
  });
});

describe("stale timing", () => {
  it("the grace is a quarter of the interval, at most 5 s", () => {
    expect(staleGraceS(4)).toBe(1);
    expect(staleGraceS(20)).toBe(5);
    expect(staleGraceS(3600)).toBe(5);
  });

  it("sleeps until the next deadline, between an eighth of the shortest interval and the cap", () => {
    expect(sweepPauseMs({ untilNextMs: null, shortestIntervalS: null }, 2000)).toBe(2000);
    expect(sweepPauseMs({ untilNextMs: 60_000, shortestIntervalS: 30 }, 5000)).toBe(5000);
    expect(sweepPauseMs({ untilNextMs: 1200, shortestIntervalS: 30 }, 5000)).toBe(3750);
    expect(sweepPauseMs({ untilNextMs: 1200, shortestIntervalS: 4 }, 5000)).toBe(1205);
    expect(sweepPauseMs({ untilNextMs: -300, shortestIntervalS: 4 }, 5000)).toBe(500);
    expect(sweepPauseMs({ untilNextMs: -300, shortestIntervalS: 1 }, 5000)).toBe(250);
  });

  it("the documented bound: marked within two intervals of the first slot with no run, half an interval to spare", () => {
    for (const intervalS of [1, 2, 4, 10, 30, 60, 300, 86_400]) {
      // The first slot with no run is one interval after the last applied one; the mark is due one interval
      // and the grace after it, and the sweep that finds it comes at most its floor (an eighth) later.
      const dueAfterFirstMissedMs = (intervalS + staleGraceS(intervalS)) * 1000;
      const floor = sweepPauseMs({ untilNextMs: -1, shortestIntervalS: intervalS }, 5000);
      expect(dueAfterFirstMissedMs + floor).toBeLessThanOrEqual(1.5 * intervalS * 1000);
    }
  });
});

/** The monitors' states by id. */
async function statesOf(k: Kysely<Database>, ids: string[]): Promise<Record<string, string>> {
  const rows = await k.selectFrom("monitors").select(["id", "state"]).where("id", "in", ids).execute();
  return Object.fromEntries(rows.map((r) => [r.id, r.state]));
}

describe.each(dbKinds)("honest state on %s", (kind) => {
  const db = useTestDb(kind);
  const log = pino({ level: "silent" });

  // What the alerts module makes of these changes (one monitor_stale event, then an up) is tested there:
  // modules/alerts/alerts-stale.test.ts.
  it("no completed run for two intervals: unknown with its reason, once per spell, as a state change", async () => {
    const t = db.app("b");
    const k = t.db.kysely;
    const u = await newUser(t, "stale");
    const now = Date.now();
    const ago = (s: number) => new Date(now - s * 1000);
    // Interval 30 s: stale once the last run is older than 2 × 30 s + 5 s.
    const base = { interval_s: 30, created_at: ago(3600), updated_at: ago(3600) };
    const noNodes = `mon_st_nn_${kind}`;
    await insertMonitor(k, noNodes, u.userId, {
      ...base,
      state: "up",
      last_slot: ago(70),
      next_run_at: ago(-10), // claimed on time: its slots were taken, no run came back
    });
    const behind = `mon_st_sb_${kind}`;
    await insertMonitor(k, behind, u.userId, {
      ...base,
      state: "down",
      last_slot: ago(70),
      next_run_at: ago(40),
    });
    const sysPaused = `mon_st_ps_${kind}`;
    await insertMonitor(k, sysPaused, u.userId, {
      ...base,
      state: "up",
      status: "paused",
      paused_reason: "agent_crash",
      last_slot: ago(100),
    });
    // Not stale: a recent run; a person's pause; a resume (updated_at) restarting the clock.
    await insertMonitor(k, `mon_st_fresh_${kind}`, u.userId, { ...base, state: "up", last_slot: ago(50) });
    await insertMonitor(k, `mon_st_user_${kind}`, u.userId, {
      ...base,
      state: "up",
      status: "paused",
      last_slot: ago(600),
    });
    await insertMonitor(k, `mon_st_res_${kind}`, u.userId, {
      ...base,
      state: "up",
      last_slot: ago(600),
      updated_at: ago(20),
    });

    const first = await markStale(k, new Date(now));
    expect(first.marked).toBe(3);
    expect(first.reasons).toEqual({ no_nodes: 1, scheduler_behind: 1, paused_by_system: 1 });
    // Once per spell: a second sweep finds nothing.
    expect((await markStale(k, new Date(now + 1000))).marked).toBe(0);
    const rows = await k
      .selectFrom("monitors")
      .select(["id", "state", "state_reason", "fail_streak", "pass_streak"])
      .where("id", "in", [noNodes, behind, sysPaused])
      .orderBy("id")
      .execute();
    expect(Object.fromEntries(rows.map((r) => [r.id, [r.state, r.state_reason]]))).toEqual({
      [noNodes]: ["unknown", "no_nodes"],
      [behind]: ["unknown", "scheduler_behind"],
      [sysPaused]: ["unknown", "paused_by_system"],
    });

    const changesOf = (id: string) =>
      k
        .selectFrom("monitor_state_changes")
        .select(["from_state", "to_state", "reason"])
        .where("monitor_id", "=", id)
        .orderBy("slot")
        .execute();
    expect(await changesOf(noNodes)).toEqual([{ from_state: "up", to_state: "unknown", reason: "no_nodes" }]);
    expect(await changesOf(behind)).toEqual([
      { from_state: "down", to_state: "unknown", reason: "scheduler_behind" },
    ]);
    expect((await changesOf(sysPaused)).map((c) => c.reason)).toEqual(["paused_by_system"]);

    // A run decides again: the reason goes, the spell ends, and its end is an `up` event.
    const writer = new RunWriter(k, log);
    const seq = (
      await k.selectFrom("monitors").select("seq").where("id", "=", noNodes).executeTakeFirstOrThrow()
    ).seq;
    writer.add({
      monitorId: noNodes,
      seq: String(seq),
      slot: new Date(now + 2000),
      passed: true,
      thresholds: { failure: 2, recovery: 1 },
      nodes: [{ node_id: "n1", success: true, latency_ms: 5, error_code: null }],
    });
    await writer.flush();
    const back = await k
      .selectFrom("monitors")
      .select(["state", "state_reason"])
      .where("id", "=", noNodes)
      .executeTakeFirstOrThrow();
    expect(back).toEqual({ state: "up", state_reason: null });
    expect(await changesOf(noNodes)).toEqual([
      { from_state: "up", to_state: "unknown", reason: "no_nodes" },
      { from_state: "unknown", to_state: "up", reason: null },
    ]);
    const spells = await staleSpells(k, noNodes, new Date(now - 3_600_000), new Date(now + 10_000));
    expect(spells).toEqual([{ from: new Date(now), to: new Date(now + 2000), reason: "no_nodes" }]);

    // The uptime shows the spell as unknown time (still open for the scheduler_behind one).
    const results = createMonitorResults({
      db: k,
      log,
      form: "b",
      plans: t.config.VANTAGE_PLAN_LIMITS,
      allowPrivateTargets: false,
      now: () => now + 10_000,
    });
    const up = await results.uptime(u.userId, behind, "24h");
    expect(up.state).toBe("unknown");
    expect(up.unknown_ms).toBe(10_000);
    expect(up.gaps).toEqual([{ from: new Date(now), to: null, reason: "scheduler_behind" }]);
  });
  it("a 4 s monitor: stale once its last slot is older than 9 s, and the outlook says when", async () => {
    const t = db.app("b");
    const k = t.db.kysely;
    const u = await newUser(t, "stale4");
    const now = Date.now();
    const ago = (s: number) => new Date(now - s * 1000);
    const base = { interval_s: 4, created_at: ago(3600), updated_at: ago(3600), state: "up" as const };
    await insertMonitor(k, `mon_st4_in_${kind}`, u.userId, { ...base, last_slot: ago(8.5) });
    await insertMonitor(k, `mon_st4_out_${kind}`, u.userId, { ...base, last_slot: ago(9.5) });
    // Other tests' monitors may be due too: the outlook is at most what these two make it.
    const outlook = await staleOutlook(k, new Date(now));
    expect(outlook.shortestIntervalS).toBe(4);
    expect(outlook.untilNextMs).toBeLessThanOrEqual(-499);
    await markStale(k, new Date(now));
    expect(await statesOf(k, [`mon_st4_in_${kind}`, `mon_st4_out_${kind}`])).toEqual({
      [`mon_st4_in_${kind}`]: "up",
      [`mon_st4_out_${kind}`]: "unknown",
    });
    // The one left: due 500 ms from now (8.5 s + 4 s × 2 + 1 s).
    const next = await staleOutlook(k, new Date(now));
    expect(next.untilNextMs).toBeGreaterThan(499);
    expect(next.untilNextMs).toBeLessThanOrEqual(500);
  });

  it("a run that may outlast its interval is waited for: a 31 s budget every 10 s is stale after 43.5 s, not 22.5", async () => {
    const t = db.app("b");
    const k = t.db.kysely;
    const u = await newUser(t, "stalelong");
    // The business plan allows 10 s.
    await k.updateTable("users").set({ plan: "business" }).where("id", "=", u.userId).execute();
    // Made through the API: the budget is the probe's timeout (30 s) plus the dispatch grace (1 s).
    const created = await t.call("POST", "/v1/monitors", {
      body: createBody("b", "tcp", "example.com:443", { interval: 10, config: { timeout_ms: 30_000 } }),
      headers: u.headers,
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id = (created.body as { data: { id: string } }).data.id;
    const row = await k
      .selectFrom("monitors")
      .select("run_budget_s")
      .where("id", "=", id)
      .executeTakeFirstOrThrow();
    expect(row.run_budget_s).toBe(31);
    const patched = await t.call("PATCH", `/v1/monitors/${id}`, {
      body: { config: { timeout_ms: 5000 } },
      headers: u.headers,
    });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    const after = await k
      .selectFrom("monitors")
      .select("run_budget_s")
      .where("id", "=", id)
      .executeTakeFirstOrThrow();
    expect(after.run_budget_s).toBe(6);
    const now = Date.now();
    const ago = (s: number) => new Date(now - s * 1000);
    const base = {
      interval_s: 10,
      run_budget_s: 31,
      created_at: ago(3600),
      updated_at: ago(3600),
      state: "up" as const,
    };
    await insertMonitor(k, `mon_stl_in_${kind}`, u.userId, { ...base, last_slot: ago(40) });
    await insertMonitor(k, `mon_stl_out_${kind}`, u.userId, { ...base, last_slot: ago(44) });
    await markStale(k, new Date(now));
    expect(await statesOf(k, [`mon_stl_in_${kind}`, `mon_stl_out_${kind}`])).toEqual({
      [`mon_stl_in_${kind}`]: "up",
      [`mon_stl_out_${kind}`]: "unknown",
    });
  });
});
