import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { issueKey, keyHeaders, newUser, type TestUser } from "../../testing/accounts.js";
import {
  invoiceObject,
  StripeFixture,
  signedDelivery,
  stripeEvent,
  subscriptionObject,
} from "../../testing/stripe-fixture.js";
import { forms, type TestApp } from "../../testing/test-app.js";
import { useTestDb } from "../../testing/use-test-db.js";

const WEBHOOK_SECRET = "whsec_dGVzdC1zZWNyZXQtZm9yLXZhbnRhZ2UtYmlsbGluZw";
const PERIOD_END = Math.floor(Date.UTC(2026, 11, 25) / 1000);

describe.each(forms)("billing without Stripe settings, Form %s", (form) => {
  const db = useTestDb("pglite");

  it("reads answer (the plan, no invoices); subscribe, cancel, portal and the webhook answer 503 naming what to set", async () => {
    const t = db.app(form);
    const u = await newUser(t, "nobill");
    const sub = await t.call("GET", "/v1/billing/subscription", { headers: u.headers });
    expect(sub.status).toBe(200);
    expect(sub.body.data).toEqual({
      plan: "free",
      status: "none",
      current_period_end: null,
      cancel_at_period_end: false,
      grace_until: null,
    });
    const inv = await t.call("GET", "/v1/billing/invoices", { headers: u.headers });
    expect(inv.status).toBe(200);
    expect(inv.body.data.items).toEqual([]);
    expect(inv.body.data.total).toBe(0);
    for (const [path, body] of [
      ["/v1/billing/subscribe", { plan: "pro" }],
      ["/v1/billing/cancel", undefined],
      ["/v1/billing/portal", undefined],
    ] as const) {
      const res = await t.call("POST", path, { headers: u.headers, ...(body ? { body } : {}) });
      expect(res.status, path).toBe(503);
      expect(res.body.error.code).toBe("billing_not_configured");
      expect(res.body.error.message).toContain("STRIPE_SECRET_KEY");
      expect(res.body.error.details.missing).toEqual([
        "STRIPE_SECRET_KEY",
        "STRIPE_WEBHOOK_SECRET",
        "STRIPE_PRICE_PRO",
        "STRIPE_PRICE_BUSINESS",
      ]);
    }
    const hook = await t.call("POST", "/v1/billing/webhook", { body: "{}" });
    expect(hook.status).toBe(503);
    expect(hook.body.error.code).toBe("billing_not_configured");
  });
});

describe.each(forms)("billing against a Stripe fixture, Form %s", (form) => {
  const db = useTestDb("pglite");
  const stripe = new StripeFixture();
  let t: TestApp;
  beforeAll(async () => {
    await stripe.start();
  });
  afterAll(() => stripe.stop());

  const env = () => ({
    STRIPE_SECRET_KEY: stripe.secretKey,
    STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
    STRIPE_PRICE_PRO: "price_pro",
    STRIPE_PRICE_BUSINESS: "price_business",
    STRIPE_API_BASE: stripe.url,
    VANTAGE_PUBLIC_URL: "https://vantage.example.com",
  });
  const deliver = (event: unknown, opts: { secret?: string; timestamp?: number } = {}) => {
    const d = signedDelivery(event, opts.secret ?? WEBHOOK_SECRET, opts.timestamp);
    return t.call("POST", "/v1/billing/webhook", { body: d.payload, headers: d.headers });
  };
  const count = async (table: "billing_events" | "billing_invoices" | "billing_subscriptions") =>
    Number(
      (
        await t.db.kysely
          .selectFrom(table)
          .select((eb) => eb.fn.countAll<string>().as("n"))
          .executeTakeFirstOrThrow()
      ).n,
    );

  it("subscribe: 400 for a plan not sold or an extra field, 401 without credentials", async () => {
    t = db.app(form, env());
    const u = await newUser(t, "badplan");
    for (const body of [{ plan: "free" }, { plan: "enterprise" }, {}, { plan: "pro", coupon: "x" }]) {
      const res = await t.call("POST", "/v1/billing/subscribe", { headers: u.headers, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(["validation_error", "unknown_field"]).toContain(res.body.error.code);
    }
    expect((await t.call("POST", "/v1/billing/subscribe", { body: { plan: "pro" } })).status).toBe(401);
    expect((await t.call("GET", "/v1/billing/subscription")).status).toBe(401);
    expect(stripe.sent("POST /v1/checkout/sessions")).toHaveLength(0);
  });

  it("subscribe: one Stripe customer per account, a Checkout session in subscription mode for the plan's price", async () => {
    t = db.app(form, env());
    const u = await newUser(t, "checkout");
    const before = stripe.requests.length;
    const first = await t.call("POST", "/v1/billing/subscribe", {
      headers: u.headers,
      body: { plan: "pro" },
    });
    expect(first.status).toBe(200);
    expect(first.body.data.checkout_url).toMatch(/^https:\/\/checkout\.stripe\.com\/c\/pay\/cs_test_/);
    expect(Date.parse(first.body.data.expires_at)).toBeGreaterThan(Date.now());
    const again = await t.call("POST", "/v1/billing/subscribe", {
      headers: u.headers,
      body: { plan: "business" },
    });
    expect(again.status).toBe(200);

    const mine = stripe.requests.slice(before);
    expect(mine.map((r) => `${r.method} ${r.path}`)).toEqual([
      "POST /v1/customers",
      "POST /v1/checkout/sessions",
      "POST /v1/checkout/sessions",
    ]);
    const [customer, pro, business] = mine as [(typeof mine)[0], (typeof mine)[0], (typeof mine)[0]];
    expect(customer.authorization).toBe(`Bearer ${stripe.secretKey}`);
    expect(customer.stripeVersion).toMatch(/^\d{4}-\d{2}-\d{2}/);
    expect(customer.idempotencyKey).toBe(`vantage-customer-${u.userId}`);
    expect(customer.body).toMatchObject({
      email: u.email.toLowerCase(),
      "metadata[vantage_user_id]": u.userId,
    });
    expect(pro.body).toMatchObject({
      mode: "subscription",
      customer: expect.stringMatching(/^cus_/),
      client_reference_id: u.userId,
      "line_items[0][price]": "price_pro",
      "line_items[0][quantity]": "1",
      "metadata[vantage_plan]": "pro",
      "subscription_data[metadata][vantage_user_id]": u.userId,
      success_url: "https://vantage.example.com/#/account?checkout=done",
      cancel_url: "https://vantage.example.com/#/account?checkout=cancelled",
    });
    expect(business.body.customer).toBe(pro.body.customer);
    expect(business.body["line_items[0][price]"]).toBe("price_business");
  });

  it("webhooks: a missing, forged or too old signature → 400 invalid_signature, and nothing is stored", async () => {
    t = db.app(form, env());
    const events = await count("billing_events");
    const event = stripeEvent(
      "invoice.paid",
      invoiceObject({ id: "in_forged", customer: "cus_x", status: "paid", amount: 100 }),
    );
    const unsigned = await t.call("POST", "/v1/billing/webhook", { body: JSON.stringify(event) });
    const forged = await deliver(event, { secret: "whsec_c29tZW9uZS1lbHNlcy1zZWNyZXQ" });
    const old = await deliver(event, { timestamp: Math.floor(Date.now() / 1000) - 600 });
    const tampered = signedDelivery(event, WEBHOOK_SECRET);
    const changed = await t.call("POST", "/v1/billing/webhook", {
      body: tampered.payload.replace('"amount_due":100', '"amount_due":1'),
      headers: tampered.headers,
    });
    // A blank body (which the body guard reads and leaves to the route): refused the same way, not a 500.
    const blank = await t.call("POST", "/v1/billing/webhook", {
      body: " ",
      headers: {
        "content-type": "application/json",
        "stripe-signature": tampered.headers["stripe-signature"],
      },
    });
    for (const res of [unsigned, forged, old, changed, blank]) {
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe("invalid_signature");
    }
    expect(await count("billing_events")).toBe(events);
    expect(await count("billing_invoices")).toBe(0);
  });

  /** Registers, subscribes (linking a Stripe customer) and answers the customer id. */
  async function subscribed(tag: string): Promise<{ u: TestUser; customer: string }> {
    const u = await newUser(t, tag);
    const res = await t.call("POST", "/v1/billing/subscribe", { headers: u.headers, body: { plan: "pro" } });
    expect(res.status).toBe(200);
    const customer = stripe.sent("POST /v1/checkout/sessions").at(-1)!.body.customer!;
    return { u, customer };
  }

  it("checkout completed + invoice paid → active pro at once (limits too, also for a cached key); a repeat changes nothing; deleted → free", async () => {
    t = db.app(form, env());
    const { u, customer } = await subscribed("flow");
    const key = await issueKey(t, u.userId);
    const usage = () => t.call("GET", "/v1/account/usage", { headers: keyHeaders(form, key.secret) });
    expect((await usage()).body.data.plan).toBe("free"); // the key is cached now

    const subId = `sub_flow${form}`;
    stripe.subscriptions.set(subId, {
      id: subId,
      customer,
      price: "price_pro",
      status: "active",
      current_period_end: PERIOD_END,
    });
    const completed = stripeEvent("checkout.session.completed", {
      id: "cs_test_done",
      object: "checkout.session",
      mode: "subscription",
      customer,
      subscription: subId,
      client_reference_id: u.userId,
      metadata: { vantage_user_id: u.userId, vantage_plan: "pro" },
    });
    const c1 = await deliver(completed);
    expect(c1.status).toBe(200);
    expect(c1.body.data).toEqual({ received: true, duplicate: false });
    const paid = stripeEvent(
      "invoice.paid",
      invoiceObject({ id: `in_flow${form}`, customer, subscription: subId, status: "paid", amount: 1900 }),
    );
    expect((await deliver(paid)).status).toBe(200);

    const sub = await t.call("GET", "/v1/billing/subscription", { headers: u.headers });
    expect(sub.body.data).toEqual({
      plan: "pro",
      status: "active",
      current_period_end: new Date(PERIOD_END * 1000).toISOString(),
      cancel_at_period_end: false,
      grace_until: null,
    });
    const cached = await usage();
    expect(cached.body.data.plan).toBe("pro");
    expect(cached.body.data.plan_limits).toEqual(t.modules.plans.service.limitsOf("pro"));
    const invoices = await t.call("GET", "/v1/billing/invoices", { headers: u.headers });
    expect(invoices.body.data.total).toBe(1);
    expect(invoices.body.data.items).toEqual([
      {
        id: `in_flow${form}`,
        amount: 19,
        amount_minor: 1900,
        currency: "USD",
        status: "paid",
        created_at: expect.any(String),
        hosted_invoice_url: `https://invoice.stripe.com/i/in_flow${form}`,
      },
    ]);

    // The same deliveries again (Stripe retries): acknowledged, nothing read from Stripe, nothing changed.
    const reads = stripe.sent(`GET /v1/subscriptions/${subId}`).length;
    const events = await count("billing_events");
    for (const e of [completed, paid]) {
      const again = await deliver(e);
      expect(again.status).toBe(200);
      expect(again.body.data.duplicate).toBe(true);
    }
    expect(stripe.sent(`GET /v1/subscriptions/${subId}`)).toHaveLength(reads);
    expect(await count("billing_events")).toBe(events);
    expect((await t.call("GET", "/v1/billing/invoices", { headers: u.headers })).body.data.total).toBe(1);

    // A second subscription while this one is live: 409, and the portal is the way to change plans.
    const twice = await t.call("POST", "/v1/billing/subscribe", {
      headers: u.headers,
      body: { plan: "business" },
    });
    expect(twice.status).toBe(409);
    expect(twice.body.error.message).toContain("/v1/billing/portal");
    const portal = await t.call("POST", "/v1/billing/portal", { headers: u.headers });
    expect(portal.status).toBe(200);
    expect(portal.body.data.portal_url).toMatch(/^https:\/\/billing\.stripe\.com\/p\/session\//);
    expect(stripe.sent("POST /v1/billing_portal/sessions").at(-1)!.body).toEqual({
      customer,
      return_url: "https://vantage.example.com/#/account",
    });

    // Cancel: at period end, told to Stripe; the plan stays until Stripe ends the subscription.
    const cancel = await t.call("POST", "/v1/billing/cancel", { headers: u.headers });
    expect(cancel.status).toBe(200);
    expect(cancel.body.data).toMatchObject({ plan: "pro", status: "active", cancel_at_period_end: true });
    expect(stripe.sent(`POST /v1/subscriptions/${subId}`).at(-1)!.body).toEqual({
      cancel_at_period_end: "true",
    });

    stripe.subscriptions.get(subId)!.status = "canceled";
    const deleted = stripeEvent(
      "customer.subscription.deleted",
      subscriptionObject(stripe.subscriptions.get(subId)!),
    );
    expect((await deliver(deleted)).status).toBe(200);
    expect((await t.call("GET", "/v1/billing/subscription", { headers: u.headers })).body.data).toMatchObject(
      {
        plan: "free",
        status: "canceled",
      },
    );
    expect((await usage()).body.data.plan).toBe("free");
    const none = await t.call("POST", "/v1/billing/cancel", { headers: u.headers });
    expect(none.status).toBe(409);
  });

  it("past due keeps the plan through the grace period, then the sweep sets free; paid again → the plan is back", async () => {
    t = db.app(form, env());
    const { u, customer } = await subscribed("pastdue");
    const subId = `sub_late${form}`;
    stripe.subscriptions.set(subId, {
      id: subId,
      customer,
      price: "price_business",
      status: "active",
      current_period_end: PERIOD_END,
    });
    await deliver(
      stripeEvent("customer.subscription.created", subscriptionObject(stripe.subscriptions.get(subId)!)),
    );
    expect((await t.call("GET", "/v1/billing/subscription", { headers: u.headers })).body.data.plan).toBe(
      "business",
    );

    stripe.subscriptions.get(subId)!.status = "past_due";
    const failed = stripeEvent(
      "invoice.payment_failed",
      invoiceObject({ id: `in_late${form}`, customer, subscription: subId, status: "open", amount: 9900 }),
    );
    expect((await deliver(failed)).status).toBe(200);
    const due = (await t.call("GET", "/v1/billing/subscription", { headers: u.headers })).body.data;
    expect(due.plan).toBe("business");
    expect(due.status).toBe("past_due");
    const graceMs = Date.parse(due.grace_until) - Date.now();
    expect(graceMs).toBeGreaterThan(6.9 * 86_400_000);
    expect(graceMs).toBeLessThanOrEqual(7 * 86_400_000);

    // Eight days later (as far as the stored state goes): the sweep ends the grace.
    await t.db.kysely
      .updateTable("billing_subscriptions")
      .set({ past_due_since: new Date(Date.now() - 8 * 86_400_000) })
      .where("id", "=", subId)
      .execute();
    await t.modules.billing.worker.tick();
    expect((await t.call("GET", "/v1/billing/subscription", { headers: u.headers })).body.data.plan).toBe(
      "free",
    );
    const inv = (await t.call("GET", "/v1/billing/invoices", { headers: u.headers })).body.data.items;
    expect(inv[0]).toMatchObject({ status: "open", amount: 99, currency: "USD" });

    stripe.subscriptions.get(subId)!.status = "active";
    const paid = stripeEvent(
      "invoice.paid",
      invoiceObject({ id: `in_late${form}`, customer, subscription: subId, status: "paid", amount: 9900 }),
    );
    expect((await deliver(paid)).status).toBe(200);
    const back = (await t.call("GET", "/v1/billing/subscription", { headers: u.headers })).body.data;
    expect(back).toMatchObject({ plan: "business", status: "active", grace_until: null });
    expect((await t.call("GET", "/v1/billing/invoices", { headers: u.headers })).body.data.items).toEqual([
      expect.objectContaining({ id: `in_late${form}`, status: "paid" }),
    ]);
  });

  it("Stripe failing: subscribe answers 502 and the webhook 502 (so Stripe delivers again); the event counts once it works", async () => {
    t = db.app(form, env());
    const { u, customer } = await subscribed("outage");
    stripe.failing.add("POST /v1/checkout/sessions");
    try {
      const res = await t.call("POST", "/v1/billing/subscribe", {
        headers: u.headers,
        body: { plan: "pro" },
      });
      expect(res.status).toBe(502);
      expect(res.body.error.code).toBe("upstream_error");
    } finally {
      stripe.failing.delete("POST /v1/checkout/sessions");
    }
    const subId = `sub_outage${form}`;
    stripe.subscriptions.set(subId, {
      id: subId,
      customer,
      price: "price_pro",
      status: "active",
      current_period_end: PERIOD_END,
    });
    const created = stripeEvent(
      "customer.subscription.created",
      subscriptionObject(stripe.subscriptions.get(subId)!),
    );
    stripe.failing.add(`GET /v1/subscriptions/${subId}`);
    try {
      const res = await deliver(created);
      expect(res.status).toBe(502);
    } finally {
      stripe.failing.delete(`GET /v1/subscriptions/${subId}`);
    }
    expect((await t.call("GET", "/v1/billing/subscription", { headers: u.headers })).body.data.plan).toBe(
      "free",
    );
    const retried = await deliver(created);
    expect(retried.body.data).toEqual({ received: true, duplicate: false });
    expect((await t.call("GET", "/v1/billing/subscription", { headers: u.headers })).body.data.plan).toBe(
      "pro",
    );
  });

  it("invoices page newest first, in the form's page fields; another account sees none of them", async () => {
    t = db.app(form, env());
    const { u, customer } = await subscribed("pages");
    for (let i = 1; i <= 3; i++) {
      const inv = invoiceObject({
        id: `in_page${form}${i}`,
        customer,
        status: "paid",
        amount: 500 * i,
        currency: "eur",
        created: 1_780_000_000 + i,
      });
      expect((await deliver(stripeEvent("invoice.paid", inv))).status).toBe(200);
    }
    const size = form === "a" ? "limit" : "per_page";
    const p1 = await t.call("GET", `/v1/billing/invoices?page=1&${size}=2`, { headers: u.headers });
    expect(p1.status).toBe(200);
    expect(p1.body.data).toMatchObject({ total: 3, page: 1, [size]: 2 });
    expect(p1.body.data.items.map((i: { id: string }) => i.id)).toEqual([
      `in_page${form}3`,
      `in_page${form}2`,
    ]);
    const p2 = await t.call("GET", `/v1/billing/invoices?page=2&${size}=2`, { headers: u.headers });
    expect(p2.body.data.items.map((i: { id: string; amount: number }) => [i.id, i.amount])).toEqual([
      [`in_page${form}1`, 5],
    ]);
    const bad = await t.call("GET", `/v1/billing/invoices?${size}=1000`, { headers: u.headers });
    expect(bad.status).toBe(400);
    const other = await newUser(t, "other");
    expect((await t.call("GET", "/v1/billing/invoices", { headers: other.headers })).body.data.total).toBe(0);
  });
});
