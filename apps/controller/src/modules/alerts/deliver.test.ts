import { pino } from "pino";
import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { jsonb } from "../../db/json.js";
import { newUser } from "../../testing/accounts.js";
import { insertMonitor } from "../../testing/monitor-rows.js";
import { dbKinds, type TestApp } from "../../testing/test-app.js";
import { useTestDb } from "../../testing/use-test-db.js";
import { testContext, useReceiver } from "./channels/channel-testing.js";
import { sendHttp } from "./channels/send.js";
import { backoffMs, createDeliverer } from "./deliver.js";
import { makeEvents } from "./events.js";

const secret = `whsec_${Buffer.alloc(32, 7).toString("base64")}`;

describe("backoff", () => {
  it("grows exponentially with full jitter, at least 1 s, at most 30 min", () => {
    expect(backoffMs(1, () => 1)).toBe(10_000);
    expect(backoffMs(4, () => 1)).toBe(80_000);
    expect(backoffMs(30, () => 1)).toBe(30 * 60_000);
    expect(backoffMs(3, () => 0)).toBe(1000);
    expect(backoffMs(3, () => 0.5)).toBe(20_000);
  });
});

describe.each(dbKinds)("alert delivery on %s", (kind) => {
  const db = useTestDb(kind);
  const receiver = useReceiver();
  let n = 0;

  /** A monitor that went down, a policy to `channels` webhook channels at the receiver: pending deliveries. */
  async function downEvent(t: TestApp, channels: number, path = "/hook") {
    const k = t.db.kysely;
    const tag = `${kind}_${++n}`;
    const u = await newUser(t, "deliver");
    await insertMonitor(k, `mon_${tag}`, u.userId, { name: "Shop", target: "https://shop.example/" });
    const ids = Array.from({ length: channels }, (_, i) => `ch_${tag}_${i}`);
    for (const id of ids) {
      await k
        .insertInto("alert_channels")
        .values({
          id,
          owner_id: u.userId,
          name: id,
          type: "webhook",
          config: jsonb<string>({ url: `${receiver.base}${path}/${id}` }),
          secrets: JSON.stringify({ secret }),
        })
        .execute();
    }
    await k
      .insertInto("alert_policies")
      .values({ id: `pol_${tag}`, owner_id: u.userId, name: "p", monitor_id: `mon_${tag}`, channel_ids: ids })
      .execute();
    await k
      .insertInto("monitor_state_changes")
      .values({
        id: `msc_${tag}`,
        monitor_id: `mon_${tag}`,
        slot: new Date(),
        from_state: "up",
        to_state: "down",
      })
      .execute();
    await makeEvents(k);
    return ids;
  }

  const deliverer = (t: TestApp, clock = { t: Date.now() }) =>
    createDeliverer({
      db: t.db.kysely,
      log: pino({ level: "silent" }),
      ctx: testContext(receiver.base),
      send: (req) => sendHttp({ kind: "http", ...req }, { allowPrivate: true, timeoutMs: 2000 }),
      enqueueEmail: async () => {},
      // The test stores the config's secrets as plain JSON; the real store seals them (lib/secret-box.ts).
      openSecrets: (row) => (row.secrets ? (JSON.parse(row.secrets) as Record<string, unknown>) : {}),
      now: () => clock.t,
      random: () => 0.5,
      breaker: { failures: 3, openMs: 60_000 },
    });
  const dueNow = (t: TestApp) =>
    t.db.kysely
      .updateTable("alert_deliveries")
      .set({ next_attempt_at: new Date(0) })
      .execute();
  const deliveries = (t: TestApp, ids: string[]) =>
    t.db.kysely
      .selectFrom("alert_deliveries")
      .select(["channel_id", "status", "attempts", "log"])
      .where("channel_id", "in", ids)
      .orderBy("channel_id")
      .execute();

  it("sends a signed webhook once; a vendor failure is retried and logged, then succeeds", async () => {
    const t = db.app("b");
    const [id] = await downEvent(t, 1);
    receiver.answer(503, "busy");
    const first = await deliverer(t).runOnce();
    expect(first).toMatchObject({ retry: 1 });
    let [row] = await deliveries(t, [id as string]);
    expect(row).toMatchObject({ status: "pending", attempts: 1 });
    expect(row?.log).toEqual([expect.objectContaining({ ok: false, status: 503 })]);

    receiver.answer(200, "");
    await dueNow(t);
    expect(await deliverer(t).runOnce()).toMatchObject({ sent: 1 });
    [row] = await deliveries(t, [id as string]);
    expect(row).toMatchObject({ status: "sent", attempts: 2 });
    expect(row?.log).toHaveLength(2);
    const last = receiver.received.at(-1);
    const verified = new Webhook(secret).verify(last?.body ?? "", {
      "webhook-id": String(last?.headers["webhook-id"]),
      "webhook-timestamp": String(last?.headers["webhook-timestamp"]),
      "webhook-signature": String(last?.headers["webhook-signature"]),
    }) as { type: string };
    expect(verified.type).toBe("monitor.down");
    // Nothing due: nothing sent again.
    await dueNow(t);
    expect(await deliverer(t).runOnce()).toMatchObject({ sent: 0 });
  });

  it("two notifiers at once deliver each message once", async () => {
    const t = db.app("b");
    const ids = await downEvent(t, 4, "/pair");
    receiver.answer(200, "");
    const [a, b] = await Promise.all([deliverer(t).runOnce(), deliverer(t).runOnce()]);
    expect(a.sent + b.sent).toBe(4);
    expect(receiver.received.filter((r) => r.url.startsWith("/pair"))).toHaveLength(4);
    expect((await deliveries(t, ids)).map((d) => d.status)).toEqual(["sent", "sent", "sent", "sent"]);
  });

  it("a dead endpoint opens its channel's breaker: its deliveries wait unspent, others go out", async () => {
    const t = db.app("b");
    const dead = await downEvent(t, 1, "/dead");
    const clock = { t: Date.now() };
    const d = deliverer(t, clock);
    receiver.answer(500, "down");
    for (let i = 0; i < 3; i++) {
      await dueNow(t);
      expect(await d.runOnce()).toMatchObject({ retry: 1 });
    }
    const [opened] = await deliveries(t, dead);
    expect(opened?.attempts).toBe(3);
    await dueNow(t);
    expect(await d.runOnce()).toMatchObject({ postponed: 1 });
    expect((await deliveries(t, dead))[0]?.attempts).toBe(3);
    // Another channel is not held up.
    receiver.answer(200, "");
    const live = await downEvent(t, 1, "/live");
    await t.db.kysely
      .updateTable("alert_deliveries")
      .set({ next_attempt_at: new Date(0) })
      .where("channel_id", "in", live)
      .execute();
    expect(await d.runOnce()).toMatchObject({ sent: 1 });
    expect((await deliveries(t, live))[0]?.status).toBe("sent");
    // After the breaker's time the dead channel is tried again.
    clock.t += 61_000;
    await dueNow(t);
    expect(await d.runOnce()).toMatchObject({ sent: 1 });
  });
});
