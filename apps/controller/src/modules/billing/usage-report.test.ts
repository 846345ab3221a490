import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newUser } from "../../testing/accounts.js";
import { StripeFixture } from "../../testing/stripe-fixture.js";
import { useTestDb } from "../../testing/use-test-db.js";
import { billingSettings } from "./stripe.js";
import { reportUsage } from "./worker.js";

const DAY = 86_400_000;
const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/**
 * Daily use → Stripe billing meter events, against a Stripe fixture and real PostgreSQL: each account, day
 * and family once; a report sent again (a crash before it was recorded) is the same event, which Stripe
 * drops; use added to a reported day goes out as the difference.
 */
describe("usage reported to Stripe's billing meters", () => {
  const db = useTestDb("postgres");
  const stripe = new StripeFixture();
  beforeAll(async () => {
    await stripe.start();
  });
  afterAll(() => stripe.stop());

  /** An app reporting `meterEvents`, an account `name` with the Stripe customer `cus_<name>`, and the report. */
  async function metered(name: string, meterEvents: string) {
    const t = db.app("b", {
      STRIPE_SECRET_KEY: stripe.secretKey,
      STRIPE_API_BASE: stripe.url,
      STRIPE_METER_EVENTS: meterEvents,
    });
    const settings = billingSettings(t.config);
    const customer = await newUser(t, name);
    await t.db.kysely
      .insertInto("billing_customers")
      .values({ user_id: customer.userId, stripe_customer_id: `cus_${name}` })
      .execute();
    const reportAt = (now: number) =>
      reportUsage({
        db: t.db.kysely,
        log: pino({ level: "silent" }),
        stripe: settings.stripe!,
        meterEvents: settings.meterEvents,
        now,
      });
    return { t, kysely: t.db.kysely, customer, reportAt };
  }

  it("sends each finished day once, never today, and only the difference after a late write", async () => {
    const { t, kysely, customer, reportAt } = await metered(
      "metered",
      "probes=vantage_node_probes,lookups=vantage_lookups",
    );
    const noCustomer = await newUser(t, "unbilled");
    // Noon of today (UTC): yesterday has settled whatever the time the suite runs (see the next test).
    const now = Date.parse(`${dayOf(Date.now())}T12:00:00Z`);
    const [twoAgo, yesterday, today] = [dayOf(now - 2 * DAY), dayOf(now - DAY), dayOf(now)];
    const use = (user_id: string, day: string, family: string, units: number) => ({
      user_id,
      day,
      family,
      units,
      calls: units,
    });
    await kysely
      .insertInto("usage_daily")
      .values([
        use(customer.userId, twoAgo, "probes", 40),
        use(customer.userId, twoAgo, "lookups", 7),
        use(customer.userId, twoAgo, "reputation", 3), // not a metered family here
        use(customer.userId, yesterday, "probes", 12),
        use(customer.userId, today, "probes", 99), // the day is not over
        use(noCustomer.userId, twoAgo, "probes", 50), // no Stripe customer
      ])
      .execute();
    const report = () => reportAt(now);

    expect(await report()).toBe(3);
    const sent = stripe.meterEvents.map((e) => [
      e.event_name,
      e["payload[stripe_customer_id]"],
      e["payload[value]"],
      e.timestamp,
    ]);
    const end = (day: string) => String(Date.parse(`${day}T23:59:59Z`) / 1000);
    expect(sent).toEqual(
      expect.arrayContaining([
        ["vantage_node_probes", "cus_metered", "40", end(twoAgo)],
        ["vantage_lookups", "cus_metered", "7", end(twoAgo)],
        ["vantage_node_probes", "cus_metered", "12", end(yesterday)],
      ]),
    );
    expect(sent).toHaveLength(3);
    for (const r of stripe.sent("POST /v1/billing/meter_events"))
      expect(r.idempotencyKey).toBe(r.body.identifier);

    // Nothing new: nothing sent.
    const calls = stripe.sent("POST /v1/billing/meter_events").length;
    expect(await report()).toBe(0);
    expect(stripe.sent("POST /v1/billing/meter_events")).toHaveLength(calls);

    // A crash after sending and before recording: the reports go again, with the same identifiers, and
    // Stripe keeps one event each.
    await kysely.deleteFrom("billing_usage_reports").execute();
    expect(await report()).toBe(3);
    expect(stripe.sent("POST /v1/billing/meter_events")).toHaveLength(calls + 3);
    expect(stripe.meterEvents).toHaveLength(3);

    // Use written late to a reported day: one more event, for the difference only.
    await kysely
      .updateTable("usage_daily")
      .set({ units: 45 })
      .where("user_id", "=", customer.userId)
      .where("day", "=", twoAgo)
      .where("family", "=", "probes")
      .execute();
    expect(await report()).toBe(1);
    expect(stripe.meterEvents.at(-1)).toMatchObject({
      event_name: "vantage_node_probes",
      "payload[value]": "5",
    });
    const total = stripe.meterEvents
      .filter((e) => e.event_name === "vantage_node_probes" && e.timestamp === end(twoAgo))
      .reduce((n, e) => n + Number(e["payload[value]"]), 0);
    expect(total).toBe(45);
  });

  it("reports a day once it has been over 15 minutes (every controller's counters flushed), not before", async () => {
    const { kysely, customer, reportAt } = await metered("settling", "probes=vantage_node_probes");
    const midnight = Date.parse(`${dayOf(Date.now())}T00:00:00Z`);
    const day = dayOf(midnight - DAY);
    await kysely
      .insertInto("usage_daily")
      .values({ user_id: customer.userId, day, family: "probes", units: 8, calls: 8 })
      .execute();
    const before = stripe.meterEvents.length;
    expect(await reportAt(midnight + 10 * 60_000)).toBe(0);
    expect(await reportAt(midnight + 14 * 60_000 + 59_000)).toBe(0);
    expect(stripe.meterEvents).toHaveLength(before);
    expect(await reportAt(midnight + 16 * 60_000)).toBe(1);
    expect(stripe.meterEvents.at(-1)).toMatchObject({
      event_name: "vantage_node_probes",
      "payload[stripe_customer_id]": "cus_settling",
      "payload[value]": "8",
    });
  });
});
