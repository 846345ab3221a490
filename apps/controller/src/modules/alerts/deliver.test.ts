import { pino } from "pino";
import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { jsonb } from "../../db/json.js";
import { newUser } from "../../testing/accounts.js";
import { insertMonitor } from "../../testing/monitor-rows.js";
import { dbKinds, type TestApp } from "../../testing/test-app.js";
import { useTestDb } from "../../testing/use-test-db.js";
import { channelRetryMs, defaultRetry } from "./channel-health.js";
import { sendHttp } from "./channels/send.js";
import { createDeliverer } from "./deliver.js";
import { makeEvents } from "./events.js";
import { testContext, useReceiver } from "./testing/channels.js";

const secret = `whsec_${Buffer.alloc(32, 7).toString("base64")}`;

describe("a failing channel's retry waits", () => {
  it("1 s doubling to 4 s, jittered down by up to a quarter; every 30 s after 10 minutes failing", () => {
    const top = () => 1;
    expect([1, 2, 3, 4, 50].map((n) => channelRetryMs(n, 0, top))).toEqual([1000, 2000, 4000, 4000, 4000]);
    expect(channelRetryMs(3, 0, () => 0)).toBe(3000);
    expect(channelRetryMs(1, 0, () => 0)).toBe(750);
    expect(channelRetryMs(3, 10 * 60_000, top)).toBe(4000);
    expect(channelRetryMs(6, 10 * 60_000, top)).toBe(30_000);
    expect(channelRetryMs(200, 3600_000, () => 0)).toBe(22_500);
    // So a dead receiver sees at most 60 / 3 = 20 attempts a minute at first, then at most 60 / 22.5.
    expect(defaultRetry.fastCapMs * 0.75).toBe(3000);
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
  const health = (t: TestApp, id: string) =>
    t.db.kysely
      .selectFrom("alert_channels")
      .select(["failing_since", "failures", "retry_at", "last_error", "last_error_at"])
      .where("id", "=", id)
      .executeTakeFirstOrThrow();

  it("sends a signed webhook once; a vendor failure is retried and logged, then succeeds", async () => {
    const t = db.app("b");
    const [id] = await downEvent(t, 1);
    const clock = { t: Date.now() };
    receiver.answer(503, "busy");
    const first = await deliverer(t, clock).runOnce();
    expect(first).toMatchObject({ retry: 1 });
    let [row] = await deliveries(t, [id as string]);
    expect(row).toMatchObject({ status: "pending", attempts: 1 });
    expect(row?.log).toEqual([expect.objectContaining({ ok: false, status: 503 })]);

    receiver.answer(200, "");
    clock.t += 1000; // the channel's first wait: 1 s (0.875 s with this jitter)
    expect(await deliverer(t, clock).runOnce()).toMatchObject({ sent: 1 });
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
    expect(await deliverer(t, clock).runOnce()).toMatchObject({ sent: 0 });
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

  /** Two more changes of the monitor behind `channel` (up, then down again): three events queued for it. */
  async function twoMoreEvents(t: TestApp, channel: string) {
    const k = t.db.kysely;
    const tag = channel.replace(/^ch_/, "").replace(/_0$/, "");
    for (const [i, [from, to]] of [
      ["down", "up"],
      ["up", "down"],
    ].entries()) {
      await k
        .insertInto("monitor_state_changes")
        .values({
          id: `msc_${tag}_more${i}`,
          monitor_id: `mon_${tag}`,
          slot: new Date(Date.now() + (i + 1) * 1000),
          from_state: from as "up" | "down",
          to_state: to as "up" | "down",
        })
        .execute();
      await makeEvents(k);
    }
  }

  it("a dead endpoint: its channel fails, one probe per wait while its deliveries wait unspent; others go out; once it answers, all queued go at once, oldest first, each once", async () => {
    const t = db.app("b");
    const [dead] = (await downEvent(t, 1, "/dead")) as [string];
    await twoMoreEvents(t, dead);
    const clock = { t: Date.now() + 5000 };
    const d = deliverer(t, clock);
    const hits = () => receiver.received.filter((r) => r.url === `/dead/${dead}`);
    receiver.answer(500, "down");

    expect(await d.runOnce()).toEqual({ sent: 0, retry: 1, failed: 0, postponed: 2 });
    const first = await health(t, dead);
    expect(first).toMatchObject({ failures: 1, last_error: "HTTP 500: down" });
    expect(first.failing_since?.getTime()).toBe(clock.t);
    expect(first.retry_at?.getTime()).toBe(clock.t + 875);
    // Before its retry time nothing is sent to it, however often the notifier runs.
    for (let i = 0; i < 3; i++)
      expect(await d.runOnce()).toEqual({ sent: 0, retry: 0, failed: 0, postponed: 0 });
    expect(hits()).toHaveLength(1);

    // Its time: one probe (two notifiers at once still send one), then the next wait, 2 s.
    clock.t += 1000;
    const [a, b] = await Promise.all([d.runOnce(), deliverer(t, clock).runOnce()]);
    expect(a.retry + b.retry).toBe(1);
    expect(hits()).toHaveLength(2);
    const second = await health(t, dead);
    expect(second.failures).toBe(2);
    expect(second.failing_since).toEqual(first.failing_since);
    expect(second.retry_at?.getTime()).toBe(clock.t + 1750);

    // Another channel is not held up.
    receiver.answer(200, "");
    const live = await downEvent(t, 1, "/live");
    expect(await d.runOnce()).toMatchObject({ sent: 1 });
    expect((await deliveries(t, live))[0]?.status).toBe("sent");
    expect(hits()).toHaveLength(2);

    // The receiver is back: at the next probe, everything queued goes out, oldest first, each once.
    clock.t += 2000;
    expect(await d.runOnce()).toEqual({ sent: 3, retry: 0, failed: 0, postponed: 0 });
    // Two failed probes (the oldest, the down), then the three in order.
    const types = hits().map((h) => (JSON.parse(h.body) as { type: string }).type);
    expect(types).toEqual(["monitor.down", "monitor.down", "monitor.down", "monitor.up", "monitor.down"]);
    const rows = await t.db.kysely
      .selectFrom("alert_deliveries")
      .select(["status", "attempts"])
      .where("channel_id", "=", dead)
      .orderBy("id")
      .execute();
    expect(rows).toEqual([
      { status: "sent", attempts: 3 },
      { status: "sent", attempts: 1 },
      { status: "sent", attempts: 1 },
    ]);
    expect(await health(t, dead)).toMatchObject({
      failing_since: null,
      failures: 0,
      retry_at: null,
      last_error: "HTTP 500: down",
    });
    expect(await d.runOnce()).toEqual({ sent: 0, retry: 0, failed: 0, postponed: 0 });
    expect(hits()).toHaveLength(5);
  });

  it("notifiers at once: a failing channel is probed once a round, always with its oldest delivery", async () => {
    const t = db.app("b");
    const [ch] = (await downEvent(t, 1, "/race")) as [string];
    await twoMoreEvents(t, ch);
    const clock = { t: Date.now() + 5000 };
    const hits = () => receiver.received.filter((r) => r.url === `/race/${ch}`);
    receiver.answer(500, "down");
    expect(await deliverer(t, clock).runOnce()).toMatchObject({ retry: 1 });
    for (let round = 0; round < 10; round++) {
      clock.t += 5000; // past any wait before 10 minutes failing (at most 4 s)
      const counts = await Promise.all(Array.from({ length: 4 }, () => deliverer(t, clock).runOnce()));
      expect(
        counts.reduce((sum, c) => sum + c.retry + c.sent, 0),
        `round ${round}`,
      ).toBe(1);
    }
    const types = hits().map((h) => (JSON.parse(h.body) as { type: string }).type);
    expect(types).toEqual(Array(11).fill("monitor.down"));
    const attempts = await t.db.kysely
      .selectFrom("alert_deliveries")
      .select("attempts")
      .where("channel_id", "=", ch)
      .orderBy("id")
      .execute();
    expect(attempts.map((r) => r.attempts)).toEqual([11, 0, 0]);
    // Back: the three go out, and nothing is left for the tests after this one.
    receiver.answer(200, "");
    clock.t += 5000;
    expect(await deliverer(t, clock).runOnce()).toEqual({ sent: 3, retry: 0, failed: 0, postponed: 0 });
  });

  it("a burst queued while the receiver is away goes out in the changes' order once it is back", async () => {
    const t = db.app("b");
    const [ch] = (await downEvent(t, 1, "/burst")) as [string];
    const tag = ch.replace(/^ch_/, "").replace(/_0$/, "");
    const clock = { t: Date.now() + 5000 };
    const d = deliverer(t, clock);
    receiver.answer(200, "");
    expect(await d.runOnce()).toMatchObject({ sent: 1 });
    receiver.answer(503, "");
    const base = Date.now();
    await t.db.kysely
      .insertInto("monitor_state_changes")
      .values(
        Array.from({ length: 30 }, (_, i) => ({
          id: `msc_${tag}_burst${String(29 - i).padStart(2, "0")}`, // ids against the order, on purpose
          monitor_id: `mon_${tag}`,
          slot: new Date(base + i * 1000),
          from_state: (i % 2 === 0 ? "down" : "up") as "up" | "down",
          to_state: (i % 2 === 0 ? "up" : "down") as "up" | "down",
        })),
      )
      .execute();
    await makeEvents(t.db.kysely);
    expect(await d.runOnce()).toMatchObject({ retry: 1, postponed: 29 });
    receiver.answer(200, "");
    clock.t += 1000;
    expect(await d.runOnce()).toMatchObject({ sent: 30 });
    const slots = receiver.received
      .filter((r) => r.url === `/burst/${ch}`)
      .slice(2)
      .map((r) => (JSON.parse(r.body) as { data: { occurred_at: string } }).data.occurred_at);
    expect(slots).toHaveLength(30);
    expect(slots).toEqual([...slots].sort());
  });

  it("a delivery whose channel has failed for longer than the give-up time is failed for good", async () => {
    const t = db.app("b");
    const [dead] = (await downEvent(t, 1, "/gone")) as [string];
    const clock = { t: Date.now() + 13 * 3600_000 };
    receiver.answer(503, "");
    expect(await deliverer(t, clock).runOnce()).toMatchObject({ retry: 1 });
    expect((await deliveries(t, [dead]))[0]).toMatchObject({ status: "failed", attempts: 1 });
  });
});
