import { sql } from "kysely";
import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { defaultPlans } from "../../lib/plans.js";
import { newUser } from "../../testing/accounts.js";
import { doneReply, refusedReply, serveNode, settle } from "../../testing/agents.js";
import { insertMonitor } from "../../testing/monitor-rows.js";
import { dbKinds, type TestApp } from "../../testing/test-app.js";
import { until } from "../../testing/until.js";
import { useTestDb } from "../../testing/use-test-db.js";
import { planMonitorProbe } from "./config.js";
import type { MonitorsContext } from "./context.js";
import { MONITORS_CHANNEL, startScheduler } from "./scheduler.js";
import { nextSlot, phaseMs, slotAtOrAfter } from "./slots.js";
import { RunWriter } from "./writer.js";

describe("slots", () => {
  it("spread monitors over the interval by id, keep their rhythm, skip missed slots", () => {
    const phases = Array.from({ length: 1000 }, (_, i) => phaseMs(`mon_${i}`, 60));
    // Spread: every 6-second tenth of the minute holds some of 1,000 monitors.
    for (let tenth = 0; tenth < 10; tenth++)
      expect(phases.filter((p) => Math.floor(p / 6000) === tenth).length).toBeGreaterThan(50);
    const now = 1_800_000_000_123;
    const first = slotAtOrAfter("mon_a", 60, now);
    expect(first).toBeGreaterThanOrEqual(now);
    expect(first - now).toBeLessThan(60_000);
    expect((first - phaseMs("mon_a", 60)) % 60_000).toBe(0);
    expect(nextSlot(first, 60, first + 1)).toBe(first + 60_000);
    // Ten minutes of downtime: the next slot is the first one ahead, not ten slots in a burst.
    expect(nextSlot(first, 60, first + 600_500)).toBe(first + 660_000);
  });
});

describe.each(dbKinds)("monitor scheduler on %s", (kind) => {
  const db = useTestDb(kind);
  const log = pino({ level: "silent" });

  async function setUp(t: TestApp) {
    const u = await newUser(t, "sched");
    const ctx: MonitorsContext = {
      db: t.db.kysely,
      log,
      form: "b",
      plans: defaultPlans,
      allowPrivateTargets: true,
      now: Date.now,
    };
    const writer = new RunWriter(t.db.kysely, log, { flushMs: 5 });
    const make = (opts: { tickMs?: number; idleMaxMs?: number } = {}) =>
      startScheduler(ctx, t.modules.probes.service, writer, {
        tickMs: opts.tickMs ?? 3_600_000,
        idleMaxMs: opts.idleMaxMs,
        batch: 1000,
        planOf: (m) => planMonitorProbe(t.modules.probes.service, m, "monitor"),
      });
    const addMonitor = async (
      id: string,
      opts: { due?: Date; status?: string; interval?: number; config?: object } = {},
    ) => {
      await insertMonitor(t.db.kysely, id, u.userId, {
        type: "tcp",
        target: "127.0.0.1:7",
        config: { ...opts.config },
        interval_s: opts.interval ?? 60,
        status: (opts.status ?? "active") as "active",
        next_run_at: opts.due ?? new Date(Date.now() - 1000),
      });
    };
    return { writer, make, addMonitor };
  }

  // Fails when the condition does not come within 30 s: a wait that ran out silently let a test go on with
  // a run still in flight (seen on a loaded machine: run 1 finished after run 2, so its older slot did not
  // move the state and "down after 2 failing runs" read fail_streak 1).
  const waitFor = (cond: () => boolean | Promise<boolean>) => until(cond.toString(), cond, 30_000, 25);

  it("claims a due monitor once, moves it to its next slot, and skips slots missed while down", async () => {
    const t = await db.freshApp("b", { VANTAGE_ALLOW_PRIVATE_TARGETS: "true" });
    serveNode(t.bus, { id: `s-${kind}-1` });
    await settle();
    const { make, addMonitor, writer } = await setUp(t);
    const missed = new Date(Date.now() - 600_000);
    await addMonitor(`mon_late_${kind}`, { due: missed });
    await addMonitor(`mon_paused_${kind}`, { status: "paused" });
    const s = make();
    await waitFor(() => s.stats.finished >= 1);
    await s.stop();
    expect(s.stats.claimed).toBe(1);
    const row = await t.db.kysely
      .selectFrom("monitors")
      .select(["next_run_at", "state", "last_slot"])
      .where("id", "=", `mon_late_${kind}`)
      .executeTakeFirstOrThrow();
    const next = new Date(row.next_run_at).getTime();
    expect(next).toBeGreaterThan(Date.now() - 1000);
    expect(next - Date.now()).toBeLessThanOrEqual(60_000);
    expect((next - missed.getTime()) % 60_000).toBe(0);
    expect(new Date(row.last_slot ?? 0).getTime()).toBe(missed.getTime());
    expect(row.state).toBe("up");
    expect(writer.stats.duplicateRows).toBe(0);
    const paused = await t.db.kysely
      .selectFrom("monitor_runs")
      .innerJoin("monitors", "monitors.seq", "monitor_runs.monitor_seq")
      .select("monitors.id")
      .where("monitors.id", "=", `mon_paused_${kind}`)
      .execute();
    expect(paused).toHaveLength(0);
  });

  it("two schedulers on one database take each due monitor exactly once", async () => {
    const t = await db.freshApp("b", { VANTAGE_ALLOW_PRIVATE_TARGETS: "true" });
    serveNode(t.bus, { id: `s-${kind}-2` });
    await settle();
    const { make, addMonitor, writer } = await setUp(t);
    for (let i = 0; i < 300; i++) await addMonitor(`mon_pair_${kind}_${i}`);
    const [a, b] = [make(), make()];
    await Promise.all([a.tick(), b.tick(), a.tick(), b.tick()]);
    await waitFor(() => a.stats.finished + b.stats.finished >= 300);
    await Promise.all([a.stop(), b.stop()]);
    expect(a.stats.claimed + b.stats.claimed).toBe(300);
    const { rows } = await sql<{ n: number | string; slots: number | string }>`
      select count(*) as n, count(distinct (monitor_seq, slot)) as slots from monitor_runs r
      join monitors m on m.seq = r.monitor_seq where m.id like ${`mon_pair_${kind}_%`}`.execute(t.db.kysely);
    expect(Number(rows[0]?.n)).toBe(300);
    expect(Number(rows[0]?.slots)).toBe(300);
    expect(writer.stats.duplicateRows).toBe(0);
  });

  it("a node that cannot run the probe (busy) says nothing about the target: the run is skipped", async () => {
    const t = await db.freshApp("b", { VANTAGE_ALLOW_PRIVATE_TARGETS: "true" });
    serveNode(t.bus, { id: `s-${kind}-busy` }, (job) => refusedReply(job, "busy"));
    await settle();
    const { make, addMonitor } = await setUp(t);
    const id = `mon_busy_${kind}`;
    await addMonitor(id);
    const s = make();
    await waitFor(() => s.stats.skipped >= 1);
    await s.stop();
    expect(s.stats).toMatchObject({ claimed: 1, skipped: 1, finished: 0, nodeErrors: 1 });
    const row = await t.db.kysely
      .selectFrom("monitors")
      .select(["state", "fail_streak"])
      .where("id", "=", id)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ state: "unknown", fail_streak: 0 });
  });

  it("an http run answered 500 fails on unexpected_status and keeps the status with the run", async () => {
    const t = await db.freshApp("b", { VANTAGE_ALLOW_PRIVATE_TARGETS: "true" });
    serveNode(t.bus, { id: `s-${kind}-500` }, (job) => {
      const reply = doneReply(job) as { outcome: { detail: Record<string, unknown> } };
      return {
        ...reply,
        outcome: { ...reply.outcome, detail: { ...reply.outcome.detail, status_code: 500 } },
      };
    });
    await settle();
    const { make } = await setUp(t);
    const id = `mon_500_${kind}`;
    const u = await t.db.kysely.selectFrom("users").select("id").executeTakeFirstOrThrow();
    const seq = await insertMonitor(t.db.kysely, id, u.id, {
      type: "http",
      target: "http://127.0.0.1:9/",
      next_run_at: new Date(Date.now() - 1000),
    });
    const s = make();
    const rows = async () =>
      await t.db.kysely
        .selectFrom("monitor_runs")
        .select(["success", "error_code", "status_code"])
        .where("monitor_seq", "=", seq)
        .execute();
    await waitFor(async () => (await rows()).length > 0);
    await s.stop();
    expect(await rows()).toEqual([{ success: false, error_code: "unexpected_status", status_code: 500 }]);
  });

  it("down after 2 failing runs, up after 1 passing run; each transition recorded once", async () => {
    const t = await db.freshApp("b", { VANTAGE_ALLOW_PRIVATE_TARGETS: "true" });
    let failing = true;
    serveNode(t.bus, { id: `s-${kind}-3` }, (job) =>
      failing
        ? {
            ...(doneReply(job) as object),
            outcome: {
              success: false,
              latency_ms: null,
              error: { code: "connection_refused", message: "refused" },
              detail: null,
            },
          }
        : doneReply(job),
    );
    await settle();
    const { make, addMonitor, writer } = await setUp(t);
    const id = `mon_state_${kind}`;
    await addMonitor(id, { interval: 1 });
    const s = make();
    const runAgain = async (n: number) => {
      await waitFor(() => s.stats.finished >= n);
      // The run's row written first: a writer's transaction still holding the monitor's row when the next
      // claim comes makes the claim skip it (`skip locked`), and no run follows (seen once in CI).
      await writer.flush();
      await t.db.kysely
        .updateTable("monitors")
        .set({ next_run_at: new Date(Date.now() - 1) })
        .where("id", "=", id)
        .execute();
      await new Promise((r) => setTimeout(r, 5));
    };
    const state = async () =>
      await t.db.kysely
        .selectFrom("monitors")
        .select(["state", "fail_streak"])
        .where("id", "=", id)
        .executeTakeFirstOrThrow();
    await runAgain(1); // first failing run (claimed at start)
    await s.tick();
    await waitFor(() => s.stats.finished >= 2);
    await s.stop();
    expect(await state()).toMatchObject({ state: "down", fail_streak: 2 });
    failing = false;
    await t.db.kysely
      .updateTable("monitors")
      .set({ next_run_at: new Date(Date.now() - 1) })
      .where("id", "=", id)
      .execute();
    const s2 = make();
    await s2.tick();
    await waitFor(() => s2.stats.finished >= 1);
    await s2.stop();
    expect((await state()).state).toBe("up");
    const changes = await t.db.kysely
      .selectFrom("monitor_state_changes")
      .select(["from_state", "to_state"])
      .where("monitor_id", "=", id)
      .orderBy("slot")
      .execute();
    expect(changes).toEqual([
      { from_state: "unknown", to_state: "down" },
      { from_state: "down", to_state: "up" },
    ]);
  });

  it("idle, it waits until the earliest monitor is due rather than claiming every tick; wake() claims at once", async () => {
    const t = await db.freshApp("b", { VANTAGE_ALLOW_PRIVATE_TARGETS: "true" });
    serveNode(t.bus, { id: `s-${kind}-idle` });
    await settle();
    const { make, addMonitor } = await setUp(t);
    // The file's database: the earlier tests' monitors would be claimed too.
    await t.db.kysely.deleteFrom("monitors").execute();
    // A 20 ms tick, but nothing is due for 600 ms: the first claim finds nothing and waits until then.
    await addMonitor(`mon_soon_${kind}`, { due: new Date(Date.now() + 600) });
    const s = make({ tickMs: 20, idleMaxMs: 60_000 });
    await waitFor(() => s.stats.claimed >= 1);
    expect(s.stats.claimed).toBe(1);
    // A tick after a claim that took some it claims again (finding nothing), then waits for the next slot,
    // a minute away: a monitor added now without a notice waits for that slot ...
    await new Promise((r) => setTimeout(r, 200));
    await addMonitor(`mon_quiet_${kind}`);
    await new Promise((r) => setTimeout(r, 300));
    expect(s.stats.claimed).toBe(1);
    // ... until the scheduler is woken (a MONITORS_CHANNEL notice does it in the app).
    s.wake();
    await waitFor(() => s.stats.claimed >= 2);
    await s.stop();
    expect(s.stats.claimed).toBe(2);
  });

  it("creating, resuming and re-timing a monitor wake the schedulers (a notice at commit, or the listen coming back)", async () => {
    const t = await db.freshApp("b", { VANTAGE_ALLOW_PRIVATE_TARGETS: "true" });
    const u = await newUser(t, "sched-wake");
    const heard: string[] = [];
    // Each successful LISTEN while this handler is there. A later one means the connection dropped and came
    // back, and a notice sent meanwhile was lost (db/listen.ts): the module wakes its scheduler on that too
    // (index.ts). Seen twice in CI on Node 24 (2026-12-01), never in a run with the re-listens logged.
    let listens = 0;
    const listening = await t.db.listen(
      MONITORS_CHANNEL,
      (id) => heard.push(id),
      () => listens++,
    );
    const listened = listens;
    try {
      const monitors = t.modules.monitors.service;
      const owner = { userId: u.userId, plan: "free" };
      let monitorId = "";
      /** `change` wakes the schedulers: a notice after it, or a LISTEN after it (the notice lost). */
      const wakes = async (what: string, change: () => Promise<unknown>) => {
        const before = { heard: heard.length, listens };
        await change();
        await waitFor(() => heard.length > before.heard || listens > before.listens).catch(
          async (err: Error) => {
            const now = await t.db.kysely
              .selectFrom("monitors")
              .selectAll()
              .where("id", "=", monitorId)
              .executeTakeFirst();
            throw new Error(
              `${what}: ${err.message}; heard ${heard.length}, LISTENs ${listens} (${before.listens} before), the row ` +
                JSON.stringify({
                  status: now?.status,
                  interval_s: now?.interval_s,
                  next_run_at: now?.next_run_at,
                }),
            );
          },
        );
      };
      await wakes("create", async () => {
        monitorId = (await monitors.create(owner, { name: "wake", type: "tcp", target: "127.0.0.1:7" })).id;
      });
      await monitors.update(owner, monitorId, { name: "renamed" });
      await monitors.pause(owner, monitorId);
      await wakes("resume", () => monitors.resume(owner, monitorId));
      await wakes("re-time", async () => {
        const retimed = await monitors.update(owner, monitorId, { intervalS: 600 });
        expect(retimed.interval_s).toBe(600);
      });
      // A rename and a pause move no run earlier: no notice for them. Three notices, less one per LISTEN
      // that came back (each may have cost one).
      expect(heard.every((id) => id === monitorId)).toBe(true);
      expect(heard.length).toBeLessThanOrEqual(3);
      expect(heard.length).toBeGreaterThanOrEqual(3 - (listens - listened));
    } finally {
      await listening.close();
    }
  });
});
