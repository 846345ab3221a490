import { describe, expect, it } from "vitest";
import { newUser } from "../../testing/accounts.js";
import { insertMonitor } from "../../testing/monitor-rows.js";
import { dbKinds, type TestApp } from "../../testing/test-app.js";
import { useTestDb } from "../../testing/use-test-db.js";
import { alertWorkWaiting, eventTypeOf, makeEvents, makeReminders } from "./events.js";

describe("which changes alert", () => {
  it("down on any change to down, up only after down, nothing for a new monitor's first up", () => {
    const all = { on_down: true, on_up: true };
    expect(eventTypeOf({ from_state: "unknown", to_state: "down" }, all)).toBe("down");
    expect(eventTypeOf({ from_state: "up", to_state: "down" }, all)).toBe("down");
    expect(eventTypeOf({ from_state: "down", to_state: "up" }, all)).toBe("up");
    expect(eventTypeOf({ from_state: "unknown", to_state: "up" }, all)).toBeNull();
    expect(eventTypeOf({ from_state: "down", to_state: "up" }, { on_down: true, on_up: false })).toBeNull();
    expect(eventTypeOf({ from_state: "up", to_state: "down" }, { on_down: false, on_up: true })).toBeNull();
  });
});

describe.each(dbKinds)("alert events from state changes on %s", (kind) => {
  const db = useTestDb(kind);

  /** A webhook channel `ch_<tag>` and a policy `pol_<tag>` on the monitor reminding every 5 minutes. */
  const remindingPolicy = async (t: TestApp, ownerId: string, monitorId: string, tag: string) => {
    const k = t.db.kysely;
    const channel = `ch_${tag}_${kind}`;
    await k
      .insertInto("alert_channels")
      .values({ id: channel, owner_id: ownerId, name: tag, type: "webhook", config: "{}", secrets: null })
      .execute();
    await k
      .insertInto("alert_policies")
      .values({
        id: `pol_${tag}_${kind}`,
        owner_id: ownerId,
        name: tag,
        monitor_id: monitorId,
        channel_ids: [channel],
        reminder_minutes: 5,
      })
      .execute();
  };

  it("each change becomes one event per matching policy and one delivery per channel, once, however many notifiers", async () => {
    const t = db.app("b");
    const k = t.db.kysely;
    const u = await newUser(t, "alerts");
    const mon = `mon_alert_${kind}`;
    const seq = await insertMonitor(k, mon, u.userId, { name: "site" });
    for (const id of ["ch_a", "ch_b"]) {
      await k
        .insertInto("alert_channels")
        .values({
          id: `${id}_${kind}`,
          owner_id: u.userId,
          name: id,
          type: "webhook",
          config: "{}",
          secrets: null,
        })
        .execute();
    }
    await k
      .insertInto("alert_policies")
      .values([
        {
          id: `pol_all_${kind}`,
          owner_id: u.userId,
          name: "all",
          monitor_id: mon,
          channel_ids: [`ch_a_${kind}`, `ch_b_${kind}`],
        },
        {
          id: `pol_down_${kind}`,
          owner_id: u.userId,
          name: "down only",
          monitor_id: mon,
          channel_ids: [`ch_a_${kind}`],
          on_up: false,
        },
      ])
      .execute();
    const slot = (m: number) => new Date(Date.UTC(2026, 10, 24, 10, m));
    await k
      .insertInto("monitor_runs")
      .values([
        {
          monitor_seq: seq,
          slot: slot(2),
          node_id: "n1",
          success: false,
          latency_ms: null,
          error_code: "connection_refused",
        },
        { monitor_seq: seq, slot: slot(2), node_id: "n2", success: true, latency_ms: 12, error_code: null },
      ])
      .execute();
    await k
      .insertInto("monitor_state_changes")
      .values([
        { id: `msc_1_${kind}`, monitor_id: mon, slot: slot(1), from_state: "unknown", to_state: "up" },
        { id: `msc_2_${kind}`, monitor_id: mon, slot: slot(2), from_state: "up", to_state: "down" },
        { id: `msc_3_${kind}`, monitor_id: mon, slot: slot(3), from_state: "down", to_state: "up" },
      ])
      .execute();

    // Three notifiers at once, then again: the changes are claimed once.
    const reports = await Promise.all([makeEvents(k, 2), makeEvents(k, 2), makeEvents(k, 2)]);
    const again = await makeEvents(k);
    const total = [...reports, again].reduce((n, r) => n + r.events, 0);
    expect(total).toBe(3); // down for both policies, up for the first
    const events = await k
      .selectFrom("alert_events")
      .select(["policy_id", "type", "state_change_id", "detail"])
      .where("monitor_id", "=", mon)
      .orderBy("state_change_id")
      .orderBy("policy_id")
      .execute();
    expect(events.map((e) => [e.policy_id, e.type, e.state_change_id])).toEqual([
      [`pol_all_${kind}`, "down", `msc_2_${kind}`],
      [`pol_down_${kind}`, "down", `msc_2_${kind}`],
      [`pol_all_${kind}`, "up", `msc_3_${kind}`],
    ]);
    expect(events[0]?.detail).toMatchObject({
      from: "up",
      to: "down",
      nodes: [{ node_id: "n1", error_code: "connection_refused" }],
    });
    const deliveries = await k
      .selectFrom("alert_deliveries")
      .innerJoin("alert_events", "alert_events.id", "alert_deliveries.event_id")
      .select([
        "alert_events.policy_id",
        "alert_events.type",
        "alert_deliveries.channel_id",
        "alert_deliveries.status",
      ])
      .where("alert_events.monitor_id", "=", mon)
      .execute();
    expect(deliveries).toHaveLength(5); // down: 2 + 1 channels; up: 2
    expect(deliveries.every((d) => d.status === "pending")).toBe(true);
    const unalerted = await k
      .selectFrom("monitor_state_changes")
      .select("id")
      .where("alerted_at", "is", null)
      .execute();
    expect(unalerted).toHaveLength(0);
  });

  it("a policy for all monitors covers each of its owner's, those made after it too, and no one else's", async () => {
    const t = db.app("b");
    const k = t.db.kysely;
    const u = await newUser(t, "scope");
    const other = await newUser(t, "scope-other");
    const since = new Date(Date.UTC(2026, 10, 24, 14, 0));
    const early = `mon_scope1_${kind}`;
    await insertMonitor(k, early, u.userId, { name: "early", state: "down", state_changed_at: since });
    await k
      .insertInto("alert_channels")
      .values({
        id: `ch_scope_${kind}`,
        owner_id: u.userId,
        name: "s",
        type: "webhook",
        config: "{}",
        secrets: null,
      })
      .execute();
    await k
      .insertInto("alert_policies")
      .values({
        id: `pol_scope_${kind}`,
        owner_id: u.userId,
        name: "everything",
        monitor_id: null,
        channel_ids: [`ch_scope_${kind}`],
        reminder_minutes: 5,
      })
      .execute();
    // Made after the policy, and another account's: only the first is the policy's.
    const late = `mon_scope2_${kind}`;
    await insertMonitor(k, late, u.userId, { name: "late", state: "down", state_changed_at: since });
    const foreign = `mon_scope3_${kind}`;
    await insertMonitor(k, foreign, other.userId, { name: "theirs", state: "down", state_changed_at: since });
    await k
      .insertInto("monitor_state_changes")
      .values(
        [early, late, foreign].map((m, i) => ({
          id: `msc_scope${i}_${kind}`,
          monitor_id: m,
          slot: since,
          from_state: "up",
          to_state: "down",
        })),
      )
      .execute();
    expect((await makeEvents(k)).events).toBeGreaterThanOrEqual(2);
    const downs = await k
      .selectFrom("alert_events")
      .select(["monitor_id", "type"])
      .where("policy_id", "=", `pol_scope_${kind}`)
      .orderBy("monitor_id")
      .execute();
    expect(downs).toEqual([
      { monitor_id: early, type: "down" },
      { monitor_id: late, type: "down" },
    ]);
    // Both down since the same instant: each monitor gets its own reminder, once.
    const at = new Date(since.getTime() + 5 * 60_000);
    expect(await alertWorkWaiting(k, at)).toBe(true);
    expect((await makeReminders(k, at)).events).toBe(2);
    expect((await makeReminders(k, at)).events).toBe(0);
    const reminders = await k
      .selectFrom("alert_events")
      .select("monitor_id")
      .where("policy_id", "=", `pol_scope_${kind}`)
      .where("type", "=", "reminder")
      .orderBy("monitor_id")
      .execute();
    expect(reminders.map((r) => r.monitor_id)).toEqual([early, late]);
    await k.updateTable("monitors").set({ state: "up" }).where("owner_id", "=", u.userId).execute();
  });

  it("reminds every N minutes while down, each reminder once, a missed one late and once", async () => {
    const t = db.app("b");
    const k = t.db.kysely;
    const u = await newUser(t, "remind");
    const mon = `mon_remind_${kind}`;
    const since = new Date(Date.UTC(2026, 10, 24, 12, 0));
    await insertMonitor(k, mon, u.userId, { name: "site", state: "down", state_changed_at: since });
    await remindingPolicy(t, u.userId, mon, "r");
    const at = (min: number) => new Date(since.getTime() + min * 60_000);
    expect((await makeReminders(k, at(4))).events).toBe(0);
    // 12 minutes down: the second reminder is due (the first was missed): one event, not two.
    const [a, b] = await Promise.all([makeReminders(k, at(12)), makeReminders(k, at(12))]);
    expect(a.events + b.events).toBe(1);
    expect((await makeReminders(k, at(14))).events).toBe(0);
    expect((await makeReminders(k, at(15))).events).toBe(1);
    const events = await k
      .selectFrom("alert_events")
      .select(["type", "state_change_id"])
      .where("monitor_id", "=", mon)
      .orderBy("created_at")
      .execute();
    expect(events.map((e) => e.type)).toEqual(["reminder", "reminder"]);
    const deliveries = await k
      .selectFrom("alert_deliveries")
      .select("channel_id")
      .where("channel_id", "=", `ch_r_${kind}`)
      .execute();
    expect(deliveries).toHaveLength(2);
    // Up again: no more reminders.
    await k.updateTable("monitors").set({ state: "up" }).where("id", "=", mon).execute();
    expect((await makeReminders(k, at(40))).events).toBe(0);
  });

  it("tells the notifier whether a round has anything to do: a change, a due reminder or a due delivery", async () => {
    const t = db.app("b");
    const k = t.db.kysely;
    // The file's database: what the earlier tests left is done with.
    await k.deleteFrom("alert_deliveries").execute();
    await k.deleteFrom("alert_policies").execute();
    await k.updateTable("monitor_state_changes").set({ alerted_at: new Date() }).execute();
    expect(await alertWorkWaiting(k)).toBe(false);

    const u = await newUser(t, "waiting");
    const mon = `mon_wait_${kind}`;
    const since = new Date(Date.now() - 4 * 60_000);
    await insertMonitor(k, mon, u.userId, { name: "site", state: "down", state_changed_at: since });
    await remindingPolicy(t, u.userId, mon, "w");
    // Down 4 minutes with a 5-minute reminder: nothing yet; in two minutes the reminder is due.
    expect(await alertWorkWaiting(k)).toBe(false);
    expect(await alertWorkWaiting(k, new Date(Date.now() + 2 * 60_000))).toBe(true);

    // A state change not yet turned into events.
    await k
      .insertInto("monitor_state_changes")
      .values({ id: `msc_w_${kind}`, monitor_id: mon, slot: since, from_state: "up", to_state: "down" })
      .execute();
    expect(await alertWorkWaiting(k)).toBe(true);
    expect((await makeEvents(k)).deliveries).toBe(1);
    // Its delivery is due now; once sent, nothing waits.
    expect(await alertWorkWaiting(k)).toBe(true);
    await k.updateTable("alert_deliveries").set({ status: "sent" }).execute();
    expect(await alertWorkWaiting(k)).toBe(false);
  });
});
