import { beforeAll, describe, expect, it } from "vitest";
import { jsonb } from "../../db/json.js";
import { newUser } from "../../testing/accounts.js";
import { dbKinds, forms, planLimitsEnv, type TestApp } from "../../testing/test-app.js";
import { useTestDb } from "../../testing/use-test-db.js";
import { alertsApiHelpers } from "./testing/alerts-api.js";

/** Alert policies and events through the API: defaults, changes, lists and deletes; references to other accounts' monitors and channels; events paged and filtered with their deliveries. */
describe.each(dbKinds)("alerts API: policies and events on %s", (kind) => {
  const db = useTestDb(kind);

  describe.each(forms)("form %s", (form) => {
    const sizeKey = form === "a" ? "limit" : "per_page";
    let t: TestApp;
    beforeAll(() => {
      t = db.app(form, { VANTAGE_PLAN_LIMITS: planLimitsEnv({ free: { alert_channels: 50 } }) });
    });
    const { call, createChannel, createMonitor } = alertsApiHelpers(() => t, form);

    it("policies: create with defaults, change, list, delete; a channel deleted leaves its policies", async () => {
      const u = await newUser(t);
      const mon = await createMonitor(u);
      const otherMon = await createMonitor(u, "example.org");
      const a = (await createChannel(u, "slack")).body.data.id as string;
      const b = (await createChannel(u, "email")).body.data.id as string;

      const created = await call(u, "POST", "/v1/alert-policies", { name: "p1", monitor_id: mon });
      expect(created.status, created.text).toBe(201);
      const p = created.body.data;
      expect(p.id).toMatch(/^pol_/);
      expect(p).toMatchObject({
        name: "p1",
        monitor_id: mon,
        channel_ids: [],
        on_down: true,
        on_up: true,
        reminder_minutes: null,
      });
      const full = await call(u, "POST", "/v1/alert-policies", {
        name: "p2",
        monitor_id: otherMon,
        channel_ids: [a, b, a],
        on_up: false,
        reminder_minutes: 30,
      });
      expect(full.status, full.text).toBe(201);
      expect(full.body.data).toMatchObject({
        channel_ids: [a, b],
        on_down: true,
        on_up: false,
        reminder_minutes: 30,
      });
      const p2 = full.body.data.id as string;

      const patched = await call(u, "PATCH", `/v1/alert-policies/${p.id}`, {
        name: "renamed",
        channel_ids: [b],
        on_down: false,
        reminder_minutes: 1440,
      });
      expect(patched.status, patched.text).toBe(200);
      expect(patched.body.data).toMatchObject({
        id: p.id,
        name: "renamed",
        monitor_id: mon,
        channel_ids: [b],
        on_down: false,
        on_up: true,
        reminder_minutes: 1440,
      });
      const got = await call(u, "GET", `/v1/alert-policies/${p.id}`);
      expect(got.body.data).toEqual(patched.body.data);

      const list = await call(u, "GET", "/v1/alert-policies");
      expect(list.body.data).toMatchObject({ total: 2, page: 1, [sizeKey]: 100 });
      expect(list.body.data.items.map((x: { id: string }) => x.id)).toEqual([p2, p.id]);
      const one = await call(u, "GET", `/v1/alert-policies?monitor_id=${mon}`);
      expect(one.body.data).toMatchObject({ total: 1, items: [{ id: p.id }] });

      // Deleting channel b takes it out of both policies.
      expect((await call(u, "DELETE", `/v1/alert-channels/${b}`)).body.data).toBeNull();
      expect((await call(u, "GET", `/v1/alert-policies/${p.id}`)).body.data.channel_ids).toEqual([]);
      expect((await call(u, "GET", `/v1/alert-policies/${p2}`)).body.data.channel_ids).toEqual([a]);

      const bad: [string, unknown, string, string][] = [
        [
          "POST",
          { name: "x", monitor_id: mon, reminder_minutes: 4 },
          "validation_error",
          "body.reminder_minutes",
        ],
        [
          "POST",
          { name: "x", monitor_id: mon, reminder_minutes: 1441 },
          "validation_error",
          "body.reminder_minutes",
        ],
        [
          "POST",
          { name: "x", monitor_id: mon, channel_ids: Array(21).fill(a) },
          "validation_error",
          "body.channel_ids",
        ],
        ["POST", { name: "x" }, "validation_error", "body.monitor_id"],
        ["PATCH", { monitor_id: otherMon }, "unknown_field", "body.monitor_id"],
        ["PATCH", { on_up: "yes" }, "validation_error", "body.on_up"],
      ];
      for (const [method, body, code, path] of bad) {
        const url = method === "POST" ? "/v1/alert-policies" : `/v1/alert-policies/${p.id}`;
        const res = await call(u, method, url, body);
        expect(res.status, JSON.stringify(body)).toBe(400);
        expect(res.body.error).toMatchObject({ code, details: [expect.objectContaining({ path })] });
      }

      expect((await call(u, "DELETE", `/v1/alert-policies/${p.id}`)).body.data).toBeNull();
      expect((await call(u, "GET", `/v1/alert-policies/${p.id}`)).status).toBe(404);
      expect((await call(u, "DELETE", `/v1/alert-policies/${p.id}`)).status).toBe(404);
    });

    it("a policy for all monitors: scope all, no monitor_id; either both or neither is a 400", async () => {
      const u = await newUser(t);
      const ch = (await createChannel(u, "email")).body.data.id as string;
      const created = await call(u, "POST", "/v1/alert-policies", {
        name: "all",
        scope: "all",
        channel_ids: [ch],
      });
      expect(created.status, created.text).toBe(201);
      expect(created.body.data).toMatchObject({
        name: "all",
        scope: "all",
        monitor_id: null,
        channel_ids: [ch],
      });
      const mon = await createMonitor(u);
      const one = await call(u, "POST", "/v1/alert-policies", { name: "one", monitor_id: mon });
      expect(one.body.data).toMatchObject({ scope: "monitor", monitor_id: mon });
      const explicit = await call(u, "POST", "/v1/alert-policies", {
        name: "x",
        scope: "monitor",
        monitor_id: mon,
      });
      expect(explicit.status, explicit.text).toBe(201);
      const got = await call(u, "GET", `/v1/alert-policies/${created.body.data.id}`);
      expect(got.body.data).toEqual(created.body.data);
      const patched = await call(u, "PATCH", `/v1/alert-policies/${created.body.data.id}`, { on_up: false });
      expect(patched.body.data).toMatchObject({ scope: "all", monitor_id: null, on_up: false });
      const list = await call(u, "GET", "/v1/alert-policies");
      expect(list.body.data.items.map((p: { scope: string }) => p.scope)).toEqual([
        "monitor",
        "monitor",
        "all",
      ]);
      for (const body of [
        { name: "both", scope: "all", monitor_id: mon },
        { name: "neither" },
        { name: "neither", scope: "monitor" },
      ]) {
        const bad = await call(u, "POST", "/v1/alert-policies", body);
        expect(bad.status, JSON.stringify(body)).toBe(400);
        expect(bad.body.error.details[0].path).toBe("body.monitor_id");
      }
      const unknown = await call(u, "POST", "/v1/alert-policies", { name: "tag", scope: "tagged" });
      expect(unknown.status).toBe(400);
      expect(unknown.body.error.details[0].path).toBe("body.scope");
      // The policy stays when a monitor goes; a monitor's own policy goes with it.
      const gone = await call(u, "DELETE", `/v1/monitors/${mon}`);
      expect(gone.status, gone.text).toBeLessThan(300);
      const after = await call(u, "GET", "/v1/alert-policies");
      expect(after.body.data.items.map((p: { name: string }) => p.name)).toEqual(["all"]);
    });

    it("a policy naming another account's (or an unknown) monitor or channel is a 404 naming it", async () => {
      const owner = await newUser(t, "owner");
      const other = await newUser(t, "other");
      const theirMon = await createMonitor(other);
      const theirCh = (await createChannel(other, "email")).body.data.id as string;
      const myMon = await createMonitor(owner);
      const myCh = (await createChannel(owner, "email")).body.data.id as string;
      const cases: [unknown, string][] = [
        [{ name: "x", monitor_id: theirMon }, "body.monitor_id"],
        [{ name: "x", monitor_id: "mon_doesnotexist" }, "body.monitor_id"],
        [{ name: "x", monitor_id: myMon, channel_ids: [myCh, theirCh] }, "body.channel_ids.1"],
        [{ name: "x", monitor_id: myMon, channel_ids: ["chn_doesnotexist"] }, "body.channel_ids.0"],
      ];
      for (const [body, path] of cases) {
        const res = await call(owner, "POST", "/v1/alert-policies", body);
        expect(res.status, res.text).toBe(404);
        expect(res.body.error.code).toBe("not_found");
        expect(res.body.error.details[0].path).toBe(path);
      }
      const mine = (await call(owner, "POST", "/v1/alert-policies", { name: "x", monitor_id: myMon })).body
        .data;
      const res = await call(owner, "PATCH", `/v1/alert-policies/${mine.id}`, { channel_ids: [theirCh] });
      expect(res.status).toBe(404);
      expect(res.body.error.details[0].path).toBe("body.channel_ids.0");
      const list = await call(owner, "GET", "/v1/alert-policies");
      expect(list.body.data.total).toBe(1);
    });

    it("events: newest first, paged, filtered by monitor and type; one event with its deliveries", async () => {
      const u = await newUser(t);
      const monA = await createMonitor(u);
      const monB = await createMonitor(u, "example.org");
      const ch = (await createChannel(u, "slack")).body.data.id as string;
      const pA = (
        await call(u, "POST", "/v1/alert-policies", { name: "a", monitor_id: monA, channel_ids: [ch] })
      ).body.data.id as string;
      const pB = (await call(u, "POST", "/v1/alert-policies", { name: "b", monitor_id: monB })).body.data
        .id as string;
      const types = ["down", "up", "down", "reminder", "test"] as const;
      const base = Date.UTC(2026, 10, 25, 8, 0);
      const events = types.map((type, i) => ({
        id: `evt_${kind}_${form}_${i}`,
        owner_id: u.userId,
        policy_id: i % 2 === 0 ? pA : pB,
        monitor_id: i % 2 === 0 ? monA : monB,
        type,
        state_change_id: `msc_${kind}_${form}_${i}`,
        detail: jsonb<string>({
          from: type === "up" ? "down" : "up",
          to: type === "up" ? "up" : "down",
          slot: new Date(base + i * 60_000).toISOString(),
          nodes: type === "down" ? [{ node_id: "fra1", error_code: "timeout" }] : [],
        }),
        created_at: new Date(base + i * 60_000),
      }));
      await t.db.kysely.insertInto("alert_events").values(events).execute();
      const log = [
        { at: new Date(base + 1000).toISOString(), ok: false, status: 500, reason: "HTTP 500: oops" },
        { at: new Date(base + 20_000).toISOString(), ok: true, status: 200, reason: null },
      ];
      await t.db.kysely
        .insertInto("alert_deliveries")
        .values([
          {
            id: `dlv_${kind}_${form}_0`,
            event_id: events[0]!.id,
            channel_id: ch,
            status: "sent",
            attempts: 2,
            sent_at: new Date(base + 20_000),
            last_error: null,
            log: jsonb<string>(log),
          },
        ])
        .execute();
      const ids = events.map((e) => e.id);

      const all = await call(u, "GET", "/v1/alert-events");
      expect(all.status, all.text).toBe(200);
      expect(all.body.data).toMatchObject({ total: 5, page: 1, [sizeKey]: 20 });
      expect(all.body.data.items.map((e: { id: string }) => e.id)).toEqual([...ids].reverse());
      expect(all.body.data.items[4]).toEqual({
        id: ids[0],
        policy_id: pA,
        monitor_id: monA,
        type: "down",
        created_at: new Date(base).toISOString(),
        detail: {
          from: "up",
          to: "down",
          slot: new Date(base).toISOString(),
          nodes: [{ node_id: "fra1", error_code: "timeout" }],
        },
        acknowledged_at: null,
        acknowledged_by: null,
      });
      const p2 = await call(u, "GET", `/v1/alert-events?${sizeKey}=2&page=2`);
      expect(p2.body.data).toMatchObject({ total: 5, page: 2, [sizeKey]: 2 });
      expect(p2.body.data.items.map((e: { id: string }) => e.id)).toEqual([ids[2], ids[1]]);
      const byMonitor = await call(u, "GET", `/v1/alert-events?monitor_id=${monB}`);
      expect(byMonitor.body.data.items.map((e: { id: string }) => e.id)).toEqual([ids[3], ids[1]]);
      expect(byMonitor.body.data.total).toBe(2);
      const downs = await call(u, "GET", `/v1/alert-events?type=down&monitor_id=${monA}`);
      expect(downs.body.data.items.map((e: { id: string }) => e.id)).toEqual([ids[2], ids[0]]);
      const beyond = await call(u, "GET", "/v1/alert-events?page=9");
      expect(beyond.body.data).toMatchObject({ items: [], total: 5, page: 9 });
      for (const q of ["type=sideways", `${sizeKey}=101`, `${sizeKey}=0`, "page=0"]) {
        const bad = await call(u, "GET", `/v1/alert-events?${q}`);
        expect(bad.status, q).toBe(400);
        expect(bad.body.error.details[0].path).toBe(`query.${q.split("=")[0]}`);
      }

      const one = await call(u, "GET", `/v1/alert-events/${ids[0]}`);
      expect(one.status, one.text).toBe(200);
      expect(one.body.data).toEqual({
        ...all.body.data.items[4],
        deliveries: [
          {
            channel_id: ch,
            status: "sent",
            attempts: 2,
            sent_at: new Date(base + 20_000).toISOString(),
            last_error: null,
            log,
          },
        ],
      });
      expect((await call(u, "GET", `/v1/alert-events/${ids[1]}`)).body.data.deliveries).toEqual([]);

      // Deleting a monitor takes its policy, never the event history: the events stay, with their
      // deliveries, listed and filtered as before, naming the monitor and policy that are gone.
      expect((await call(u, "DELETE", `/v1/monitors/${monA}`)).status).toBe(200);
      expect((await call(u, "GET", `/v1/alert-policies/${pA}`)).status).toBe(404);
      const kept = await call(u, "GET", "/v1/alert-events");
      expect(kept.body.data).toEqual(all.body.data);
      expect((await call(u, "GET", `/v1/alert-events?monitor_id=${monA}`)).body.data.total).toBe(3);
      expect((await call(u, "GET", `/v1/alert-events/${ids[0]}`)).body.data).toEqual(one.body.data);
      // Deleting a policy keeps its events too.
      expect((await call(u, "DELETE", `/v1/alert-policies/${pB}`)).status).toBe(200);
      expect((await call(u, "GET", "/v1/alert-events")).body.data).toEqual(all.body.data);
      const stranger = await newUser(t);
      const theirs = await call(stranger, "GET", `/v1/alert-events/${ids[0]}`);
      expect(theirs.status).toBe(404);
      expect((await call(stranger, "GET", "/v1/alert-events")).body.data).toMatchObject({
        items: [],
        total: 0,
      });
    });
  });
});
