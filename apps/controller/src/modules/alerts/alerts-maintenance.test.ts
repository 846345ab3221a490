import { describe, expect, it } from "vitest";
import { newUser } from "../../testing/accounts.js";
import { insertMonitor } from "../../testing/monitor-rows.js";
import { dbKinds } from "../../testing/test-app.js";
import { useTestDb } from "../../testing/use-test-db.js";
import { afterMaintenanceDue, afterMaintenanceWaiting, makeAfterMaintenance } from "./after-maintenance.js";
import { alertWorkWaiting, makeEvents, makeReminders } from "./events.js";

const MIN = 60_000;
const iso = (t: number) => new Date(t).toISOString();

/** The alert path with the monitors module's maintenance windows (issue #29 item 4). */
describe.each(dbKinds)("alerts inside maintenance windows on %s", (kind) => {
  const db = useTestDb(kind);

  it("a down change inside a window alerts nobody (kept with the window's id); outside it alerts", async () => {
    const t = db.app("a");
    const k = t.db.kysely;
    const u = await newUser(t, "mnt-mute");
    const mon = `mon_mnt_mute_${kind}`;
    await insertMonitor(k, mon, u.userId, { name: "site", state: "down" });
    await k
      .insertInto("alert_policies")
      .values({ id: `pol_mnt_${kind}`, owner_id: u.userId, name: "p", monitor_id: mon, reminder_minutes: 5 })
      .execute();
    const now = Date.now();
    const w = await t.call("POST", "/v1/maintenance-windows", {
      headers: u.headers,
      body: {
        title: "now",
        monitor_ids: [mon],
        starts_at: iso(now - 30 * MIN),
        ends_at: iso(now + 30 * MIN),
      },
    });
    expect(w.status, w.text).toBe(201);
    const inside = new Date(now - 10 * MIN);
    const outside = new Date(now - 40 * MIN);
    await k
      .insertInto("monitor_state_changes")
      .values([
        {
          id: `msc_mnt_out_${kind}`,
          monitor_id: mon,
          slot: outside,
          from_state: "up",
          to_state: "down",
          created_at: outside,
        },
        {
          id: `msc_mnt_in_${kind}`,
          monitor_id: mon,
          slot: inside,
          from_state: "up",
          to_state: "down",
          created_at: inside,
        },
      ])
      .execute();
    const mute = t.modules.monitors.maintenance.covering;
    const report = await makeEvents(k, 500, mute);
    expect(report).toMatchObject({ changes: 2, events: 1 });
    const events = await k
      .selectFrom("alert_events")
      .select(["state_change_id", "type"])
      .where("monitor_id", "=", mon)
      .execute();
    expect(events).toEqual([{ state_change_id: `msc_mnt_out_${kind}`, type: "down" }]);
    const changes = await k
      .selectFrom("monitor_state_changes")
      .select(["id", "maintenance_id"])
      .where("monitor_id", "=", mon)
      .orderBy("slot")
      .execute();
    expect(changes).toEqual([
      { id: `msc_mnt_out_${kind}`, maintenance_id: null },
      { id: `msc_mnt_in_${kind}`, maintenance_id: w.body.data.id },
    ]);
    // Down for 10 minutes with 5-minute reminders: none while the window is open.
    await k.updateTable("monitors").set({ state_changed_at: inside }).where("id", "=", mon).execute();
    expect((await makeReminders(k, new Date(now), mute)).events).toBe(0);
    expect((await makeReminders(k, new Date(now))).events).toBe(1);
  });

  it("a monitor still down when its window ends alerts then, once; not while the window is open", async () => {
    const t = db.app("a");
    const k = t.db.kysely;
    const u = await newUser(t, "mnt-after");
    const mon = `mon_mnt_after_${kind}`;
    await insertMonitor(k, mon, u.userId, { name: "site", state: "down" });
    await k
      .insertInto("alert_policies")
      .values({ id: `pol_mnt_after_${kind}`, owner_id: u.userId, name: "p", monitor_id: mon })
      .execute();
    const now = Date.now();
    const w = await t.call("POST", "/v1/maintenance-windows", {
      headers: u.headers,
      body: {
        title: "work",
        monitor_ids: [mon],
        starts_at: iso(now - 30 * MIN),
        ends_at: iso(now + 30 * MIN),
      },
    });
    expect(w.status, w.text).toBe(201);
    const inside = new Date(now - 10 * MIN);
    await k
      .insertInto("monitor_state_changes")
      .values({
        id: `msc_mnt_after_${kind}`,
        monitor_id: mon,
        slot: inside,
        from_state: "up",
        to_state: "down",
        created_at: inside,
      })
      .execute();
    const mute = t.modules.monitors.maintenance.covering;
    // Other tests' monitors share the database: count this one's events.
    const eventsOf = () =>
      k
        .selectFrom("alert_events")
        .select(["type", "state_change_id", "detail"])
        .where("monitor_id", "=", mon)
        .execute();
    await makeEvents(k, 500, mute);
    expect(await eventsOf()).toEqual([]);
    // Inside the window: waiting (the gate), but nothing is made.
    expect(await afterMaintenanceWaiting(k)).toBe(true);
    // The notifier's poll asks it in its one gate statement.
    expect(await alertWorkWaiting(k, new Date(now), [afterMaintenanceDue])).toBe(true);
    await makeAfterMaintenance(k, new Date(now), mute);
    expect(await eventsOf()).toEqual([]);
    // After it: one down event for the hidden outage, naming the window, made once.
    const later = new Date(now + 31 * MIN);
    await makeAfterMaintenance(k, later, mute);
    await makeAfterMaintenance(k, later, mute);
    expect(await eventsOf()).toMatchObject([
      {
        type: "down",
        state_change_id: `after-maintenance:msc_mnt_after_${kind}`,
        detail: { to: "down", slot: inside.toISOString(), after_maintenance: w.body.data.id },
      },
    ]);
  });

  it("a monitor up again by the window's end gets no late alert", async () => {
    const t = db.app("a");
    const k = t.db.kysely;
    const u = await newUser(t, "mnt-after-up");
    const mon = `mon_mnt_after_up_${kind}`;
    await insertMonitor(k, mon, u.userId, { name: "site", state: "up" });
    await k
      .insertInto("alert_policies")
      .values({ id: `pol_mnt_after_up_${kind}`, owner_id: u.userId, name: "p", monitor_id: mon })
      .execute();
    const now = Date.now();
    const w = await t.call("POST", "/v1/maintenance-windows", {
      headers: u.headers,
      body: {
        title: "work",
        monitor_ids: [mon],
        starts_at: iso(now - 30 * MIN),
        ends_at: iso(now - 5 * MIN),
      },
    });
    expect(w.status, w.text).toBe(201);
    const at = (m: number) => new Date(now - m * MIN);
    await k
      .insertInto("monitor_state_changes")
      .values([
        {
          id: `msc_mau_d_${kind}`,
          monitor_id: mon,
          slot: at(20),
          from_state: "up",
          to_state: "down",
          created_at: at(20),
        },
        {
          id: `msc_mau_u_${kind}`,
          monitor_id: mon,
          slot: at(10),
          from_state: "down",
          to_state: "up",
          created_at: at(10),
        },
      ])
      .execute();
    const mute = t.modules.monitors.maintenance.covering;
    await makeEvents(k, 500, mute);
    await makeAfterMaintenance(k, new Date(now), mute);
    const events = await k.selectFrom("alert_events").select("id").where("monitor_id", "=", mon).execute();
    expect(events).toEqual([]);
  });
});
