import { describe, expect, it } from "vitest";
import { newUser, type TestUser } from "../../testing/accounts.js";
import { insertMonitor } from "../../testing/monitor-rows.js";
import { dbKinds, forms, type TestApp } from "../../testing/test-app.js";
import { useTestDb } from "../../testing/use-test-db.js";

const MIN = 60_000;
const iso = (t: number) => new Date(t).toISOString();

/** Maintenance windows through the API in both forms; what they mute on the alert path; uptime's share. */
describe.each(dbKinds)("maintenance windows on %s", (kind) => {
  const db = useTestDb(kind);

  const call = (t: TestApp, u: TestUser, method: string, path: string, body?: unknown) =>
    t.call(method, path, { headers: u.headers, ...(body === undefined ? {} : { body }) });

  describe.each(forms)("form %s", (form) => {
    it("one-off and recurring: create, read, list, change kind, delete; bad input named by field", async () => {
      const t = db.app(form);
      const u = await newUser(t, `mnt-crud-${form}`);
      const other = await newUser(t, `mnt-other-${form}`);
      const mon = `mon_mnt_crud_${kind}_${form}`;
      await insertMonitor(t.db.kysely, mon, u.userId);
      const theirs = `mon_mnt_theirs_${kind}_${form}`;
      await insertMonitor(t.db.kysely, theirs, other.userId);

      const start = Date.now() - 10 * MIN;
      const once = await call(t, u, "POST", "/v1/maintenance-windows", {
        title: "DB upgrade",
        monitor_ids: [mon, mon],
        starts_at: iso(start),
        ends_at: iso(start + 60 * MIN),
      });
      expect(once.status, once.text).toBe(201);
      expect(once.body.data).toMatchObject({
        title: "DB upgrade",
        scope: "monitor",
        monitor_ids: [mon],
        kind: "once",
        recurrence: null,
        active: true,
        upcoming: [{ starts_at: iso(start), ends_at: iso(start + 60 * MIN) }],
      });
      const id = once.body.data.id as string;
      expect(id).toMatch(/^mnt_/);

      const weekly = await call(t, u, "POST", "/v1/maintenance-windows", {
        title: "Sunday patching",
        scope: "all",
        recurrence: {
          rrule: "FREQ=WEEKLY;BYDAY=SU",
          start_local: "2026-03-01T02:30",
          time_zone: "Europe/Berlin",
          duration_minutes: 90,
        },
      });
      expect(weekly.status, weekly.text).toBe(201);
      expect(weekly.body.data).toMatchObject({
        scope: "all",
        monitor_ids: [],
        kind: "recurring",
        starts_at: null,
      });
      const upcoming = weekly.body.data.upcoming as { starts_at: string; ends_at: string }[];
      expect(upcoming.length).toBe(5);
      for (const o of upcoming) {
        expect(new Date(o.starts_at).getUTCDay()).toBe(0);
        expect(Date.parse(o.ends_at) - Date.parse(o.starts_at)).toBe(90 * MIN);
      }

      const bad = async (body: Record<string, unknown>, status: number, path: string) => {
        const res = await call(t, u, "POST", "/v1/maintenance-windows", { title: "x", ...body });
        expect(res.status, res.text).toBe(status);
        expect(res.body.error.details[0].path).toBe(path);
      };
      const rec = {
        rrule: "FREQ=DAILY",
        start_local: "2026-01-01T00:00",
        time_zone: "UTC",
        duration_minutes: 5,
      };
      await bad({ scope: "all", recurrence: { ...rec, rrule: "FREQ=YEARLY" } }, 400, "body.recurrence.rrule");
      await bad(
        { scope: "all", recurrence: { ...rec, time_zone: "Mars/Base" } },
        400,
        "body.recurrence.time_zone",
      );
      await bad(
        { scope: "all", recurrence: { ...rec, start_local: "2026-02-30T00:00" } },
        400,
        "body.recurrence.start_local",
      );
      await bad({ scope: "all", starts_at: iso(start), ends_at: iso(start) }, 400, "body.ends_at");
      await bad(
        { scope: "all", starts_at: iso(start), ends_at: iso(start + MIN), recurrence: rec },
        400,
        "body",
      );
      await bad({ scope: "all", monitor_ids: [mon], recurrence: rec }, 400, "body.monitor_ids");
      await bad({ monitor_ids: [mon, theirs], recurrence: rec }, 404, "body.monitor_ids.1");
      await bad({ scope: "all", starts_at: "tomorrow", ends_at: iso(start) }, 400, "body.starts_at");
      const unknown = await call(t, u, "POST", "/v1/maintenance-windows", {
        title: "x",
        scope: "all",
        recurrence: rec,
        cron: "* * * * *",
      });
      expect(unknown.status).toBe(400);
      expect(unknown.body.error.code).toBe("unknown_field");

      const list = await call(t, u, "GET", "/v1/maintenance-windows");
      expect(list.status, list.text).toBe(200);
      expect(list.body.data.total).toBe(2);
      expect((await call(t, other, "GET", `/v1/maintenance-windows/${id}`)).status).toBe(404);
      expect((await call(t, other, "DELETE", `/v1/maintenance-windows/${id}`)).status).toBe(404);

      const changed = await call(t, u, "PATCH", `/v1/maintenance-windows/${id}`, {
        recurrence: rec,
        title: "Nightly",
      });
      expect(changed.status, changed.text).toBe(200);
      expect(changed.body.data).toMatchObject({
        title: "Nightly",
        kind: "recurring",
        starts_at: null,
        monitor_ids: [mon],
      });
      expect((await call(t, u, "DELETE", `/v1/maintenance-windows/${id}`)).status).toBe(200);
      expect((await call(t, u, "GET", `/v1/maintenance-windows/${id}`)).status).toBe(404);
    });
  });

  it("uptime: failing runs inside a window are maintenance, not downtime", async () => {
    const t = db.app("a");
    const k = t.db.kysely;
    const u = await newUser(t, "mnt-uptime");
    const mon = `mon_mnt_uptime_${kind}`;
    const seq = await insertMonitor(k, mon, u.userId, { name: "site", state: "down" });
    const now = Date.now();
    const w = await call(t, u, "POST", "/v1/maintenance-windows", {
      title: "now",
      monitor_ids: [mon],
      starts_at: iso(now - 30 * MIN),
      ends_at: iso(now + 30 * MIN),
    });
    expect(w.status, w.text).toBe(201);
    // Uptime: failing runs inside the window are maintenance, not downtime.
    const slot = Math.floor((now - 5 * MIN) / 1000) * 1000;
    await k
      .insertInto("monitor_runs")
      .values([
        {
          monitor_seq: seq,
          slot: new Date(slot),
          node_id: "n1",
          success: false,
          latency_ms: null,
          error_code: "x",
          status_code: null,
        },
        {
          monitor_seq: seq,
          slot: new Date(slot - 50 * MIN),
          node_id: "n1",
          success: false,
          latency_ms: null,
          error_code: "x",
          status_code: null,
        },
        {
          monitor_seq: seq,
          slot: new Date(slot - 55 * MIN),
          node_id: "n1",
          success: true,
          latency_ms: 5,
          error_code: null,
          status_code: null,
        },
      ])
      .execute();
    const up = await call(t, u, "GET", `/v1/monitors/${mon}/uptime?window=24h`);
    expect(up.status, up.text).toBe(200);
    expect(up.body.data).toMatchObject({ runs: 3, failures: 1, maintenance: { runs: 1, failures: 1 } });
    // The window's half up to now.
    expect(Math.abs(up.body.data.maintenance.seconds - 1800)).toBeLessThanOrEqual(2);
    expect(up.body.data.uptime_percent).toBeCloseTo(66.667, 2);
  });
});
