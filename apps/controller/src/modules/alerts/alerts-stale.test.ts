import { describe, expect, it } from "vitest";
import { newUser } from "../../testing/accounts.js";
import { insertMonitor } from "../../testing/monitor-rows.js";
import { dbKinds } from "../../testing/test-app.js";
import { useTestDb } from "../../testing/use-test-db.js";
import { eventTypeOf, makeEvents } from "./events.js";

/** The alert path with the monitors module's stale state (issue #29 item 1): monitors/stale.ts writes the changes. */
describe("stale changes as alerts", () => {
  it("a change to unknown with a reason is monitor_stale (on down); the run ending it an up (on up)", () => {
    const all = { on_down: true, on_up: true };
    const stale = { from_state: "up", to_state: "unknown", reason: "no_nodes" };
    expect(eventTypeOf(stale, all)).toBe("monitor_stale");
    expect(eventTypeOf(stale, { on_down: false, on_up: true })).toBeNull();
    expect(eventTypeOf({ from_state: "unknown", to_state: "up", after_stale: true }, all)).toBe("up");
    expect(eventTypeOf({ from_state: "unknown", to_state: "up", after_stale: false }, all)).toBeNull();
  });
});

describe.each(dbKinds)("stale alerts on %s", (kind) => {
  const db = useTestDb(kind);

  it("one monitor_stale event per spell with its reason, then an up when a run ends it", async () => {
    const t = db.app("b");
    const k = t.db.kysely;
    const u = await newUser(t, "stale-alerts");
    const mon = `mon_sta_${kind}`;
    await insertMonitor(k, mon, u.userId, { name: "site", state: "up" });
    await k
      .insertInto("alert_channels")
      .values({
        id: `ch_sta_${kind}`,
        owner_id: u.userId,
        name: "h",
        type: "webhook",
        config: "{}",
        secrets: null,
      })
      .execute();
    await k
      .insertInto("alert_policies")
      .values({
        id: `pol_sta_${kind}`,
        owner_id: u.userId,
        name: "all",
        monitor_id: null,
        channel_ids: [`ch_sta_${kind}`],
      })
      .execute();
    const now = Date.now();
    await k
      .insertInto("monitor_state_changes")
      .values({
        id: `msc_sta_1_${kind}`,
        monitor_id: mon,
        slot: new Date(now - 2000),
        from_state: "up",
        to_state: "unknown",
        reason: "no_nodes",
      })
      .execute();
    expect(await makeEvents(k)).toMatchObject({ changes: 1, events: 1, deliveries: 1 });

    await k
      .insertInto("monitor_state_changes")
      .values({
        id: `msc_sta_2_${kind}`,
        monitor_id: mon,
        slot: new Date(now - 1000),
        from_state: "unknown",
        to_state: "up",
      })
      .execute();
    expect(await makeEvents(k)).toMatchObject({ changes: 1, events: 1 });

    const events = await k
      .selectFrom("alert_events")
      .select(["type", "detail"])
      .where("policy_id", "=", `pol_sta_${kind}`)
      .orderBy("created_at")
      .execute();
    expect(events.map((e) => e.type)).toEqual(["monitor_stale", "up"]);
    expect(events[0]!.detail).toMatchObject({ from: "up", to: "unknown", reason: "no_nodes" });
  });
});
