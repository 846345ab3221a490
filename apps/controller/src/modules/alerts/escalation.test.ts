import { describe, expect, it } from "vitest";
import { jsonb } from "../../db/json.js";
import { newUser } from "../../testing/accounts.js";
import { insertMonitor } from "../../testing/monitor-rows.js";
import { dbKinds, type TestApp } from "../../testing/test-app.js";
import { useTestDb } from "../../testing/use-test-db.js";
import { ACK_LINK_TTL_S, ackToken } from "./acknowledge.js";
import { escalationDue, escalationWaiting, makeEscalations } from "./escalation.js";
import { alertWorkWaiting, makeReminders } from "./events.js";

const MIN = 60_000;

/** Escalation steps and acknowledgement (API and signed link), with the notifier's clock given. */
describe.each(dbKinds)("alert escalation and acknowledgement on %s", (kind) => {
  const db = useTestDb(kind);

  async function scenario(t: TestApp, name: string) {
    const k = t.db.kysely;
    const u = await newUser(t, `esc-${name}`);
    const since = new Date(Date.now() - 60 * MIN);
    const mon = `mon_esc_${name}_${kind}`;
    await insertMonitor(k, mon, u.userId, { name: "site", state: "down", state_changed_at: since });
    const ch = (c: string) => `chn_esc_${name}_${c}_${kind}`;
    await k
      .insertInto("alert_channels")
      .values(
        ["a", "b", "c"].map((c) => ({
          id: ch(c),
          owner_id: u.userId,
          name: c,
          type: "email",
          config: jsonb<string>({ to: [`${c}@example.com`] }),
        })),
      )
      .execute();
    const created = await t.call("POST", "/v1/alert-policies", {
      headers: u.headers,
      body: {
        name: "on-call",
        monitor_id: mon,
        channel_ids: [ch("a")],
        reminder_minutes: 5,
        escalation: [
          { after_minutes: 1, channel_ids: [ch("b")] },
          { after_minutes: 5, channel_ids: [ch("c"), ch("b")] },
        ],
      },
    });
    expect(created.status, created.text).toBe(201);
    const policy = created.body.data.id as string;
    const at = new Date(since.getTime() + 1000);
    const down = `evt_esc_${name}_${kind}`;
    await k
      .insertInto("alert_events")
      .values({
        id: down,
        owner_id: u.userId,
        policy_id: policy,
        monitor_id: mon,
        type: "down",
        state_change_id: `msc_${down}`,
        detail: jsonb<string>({ to: "down", slot: since.toISOString(), nodes: [] }),
        created_at: at,
      })
      .execute();
    return { u, k, ch, policy, down, at, mon };
  }

  it("policy steps: validated, each step once when due, channels as the step names; acknowledged → none", async () => {
    const t = db.app("a");
    const { u, k, ch, down, at, policy } = await scenario(t, "steps");
    const plus = (ms: number) => new Date(at.getTime() + ms);
    expect(await escalationWaiting(k, plus(30_000), MIN)).toBe(false);
    expect(await makeEscalations(k, plus(30_000), MIN)).toEqual({ events: 0, deliveries: 0 });
    expect(await escalationWaiting(k, plus(MIN), MIN)).toBe(true);
    // The notifier's poll asks it in its one gate statement.
    expect(await alertWorkWaiting(k, plus(30_000), [escalationDue(plus(30_000), MIN)])).toBe(false);
    expect(await alertWorkWaiting(k, plus(MIN))).toBe(false);
    expect(await alertWorkWaiting(k, plus(MIN), [escalationDue(plus(MIN), MIN)])).toBe(true);
    const [a, b] = await Promise.all([
      makeEscalations(k, plus(MIN), MIN),
      makeEscalations(k, plus(MIN), MIN),
    ]);
    expect(a.events + b.events).toBe(1);
    expect((await makeEscalations(k, plus(4 * MIN), MIN)).events).toBe(0);
    expect(await makeEscalations(k, plus(5 * MIN), MIN)).toEqual({ events: 1, deliveries: 2 });
    expect(await escalationWaiting(k, plus(60 * MIN), MIN)).toBe(false);
    const steps = await k
      .selectFrom("alert_events as e")
      .innerJoin("alert_deliveries as d", "d.event_id", "e.id")
      .select(["e.type", "e.detail", "d.channel_id"])
      .where("e.policy_id", "=", policy)
      .where("e.type", "=", "escalation")
      .orderBy("d.channel_id")
      .execute();
    expect(steps.map((s) => [(s.detail as { step: number }).step, s.channel_id]).sort()).toEqual([
      [1, ch("b")],
      [2, ch("b")],
      [2, ch("c")],
    ]);
    expect(steps.every((s) => (s.detail as { escalates: string }).escalates === down)).toBe(true);

    // Bad steps, named by field.
    const bad = await t.call("PATCH", `/v1/alert-policies/${policy}`, {
      headers: u.headers,
      body: {
        escalation: [
          { after_minutes: 5, channel_ids: [ch("b")] },
          { after_minutes: 5, channel_ids: [ch("c")] },
        ],
      },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details[0].path).toBe("body.escalation.1.after_minutes");
    const foreign = await t.call("PATCH", `/v1/alert-policies/${policy}`, {
      headers: u.headers,
      body: { escalation: [{ after_minutes: 5, channel_ids: [ch("b"), "chn_nobody"] }] },
    });
    expect(foreign.status).toBe(404);
    expect(foreign.body.error.details[0].path).toBe("body.escalation.0.channel_ids.1");
    const got = await t.call("GET", `/v1/alert-policies/${policy}`, { headers: u.headers });
    expect(got.body.data.escalation).toEqual([
      { after_minutes: 1, channel_ids: [ch("b")] },
      { after_minutes: 5, channel_ids: [ch("c"), ch("b")] },
    ]);
  });

  it("acknowledged through the API: no step and no reminder follows; 409 for other types, 404 for others", async () => {
    const t = db.app("b");
    const { u, k, down, at, policy } = await scenario(t, "api");
    const other = await newUser(t, "esc-api-other");
    expect((await t.call("POST", `/v1/alert-events/${down}/ack`, { headers: other.headers })).status).toBe(
      404,
    );
    const acked = await t.call("POST", `/v1/alert-events/${down}/ack`, { headers: u.headers });
    expect(acked.status, acked.text).toBe(200);
    expect(acked.body.data).toMatchObject({ id: down, acknowledged_by: u.userId });
    const again = await t.call("POST", `/v1/alert-events/${down}/ack`, { headers: u.headers });
    expect(again.body.data.acknowledged_at).toBe(acked.body.data.acknowledged_at);
    expect(await makeEscalations(k, new Date(at.getTime() + 30 * MIN), MIN)).toEqual({
      events: 0,
      deliveries: 0,
    });
    await makeReminders(k, new Date(at.getTime() + 30 * MIN));
    const reminders = await k
      .selectFrom("alert_events")
      .select("id")
      .where("policy_id", "=", policy)
      .where("type", "=", "reminder")
      .execute();
    expect(reminders).toEqual([]);
    const rem = await k
      .selectFrom("alert_events")
      .select("id")
      .where("type", "=", "down")
      .where("id", "=", down)
      .executeTakeFirstOrThrow();
    await k.updateTable("alert_events").set({ type: "reminder" }).where("id", "=", rem.id).execute();
    const wrong = await t.call("POST", `/v1/alert-events/${down}/ack`, { headers: u.headers });
    expect(wrong.status).toBe(409);
  });

  it("the signed link: a page on GET, acknowledged once by POST signed-out; altered or expired refused", async () => {
    const t = db.app("a");
    const { down } = await scenario(t, "link");
    const box = t.modules.alerts.box;
    if (!box) throw new Error("the test app has a secret key");
    const token = ackToken(box, down, Date.now());
    const page = await t.app.request(`/v1/alert-ack/${token}`);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toMatch(/text\/html/);
    expect(await page.text()).toContain('<form method="post">');
    const first = await t.call("POST", `/v1/alert-ack/${token}`);
    expect(first.status, first.text).toBe(200);
    expect(first.body.data.event_id).toBe(down);
    const second = await t.call("POST", `/v1/alert-ack/${token}`);
    expect(second.status).toBe(409);
    const row = await t.db.kysely
      .selectFrom("alert_events")
      .select("acknowledged_by")
      .where("id", "=", down)
      .executeTakeFirstOrThrow();
    expect(row.acknowledged_by).toBe("link");

    const [id, exp, mac] = token.split(".") as [string, string, string];
    const altered = `${id}.${Number(exp) + 1}.${mac}`;
    const res = await t.call("POST", `/v1/alert-ack/${altered}`);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("invalid_signature");
    const expired = ackToken(box, down, Date.now() - (ACK_LINK_TTL_S + 60) * 1000);
    const old = await t.call("POST", `/v1/alert-ack/${expired}`);
    expect(old.status).toBe(400);
    expect(old.body.error.message).toMatch(/expired/);
  });
});
