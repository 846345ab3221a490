import { describe, expect, it } from "vitest";
import { issueKey, keyHeaders } from "../../testing/accounts.js";
import { invoiceObject, stripeEvent, subscriptionObject } from "../../testing/stripe-fixture.js";
import { forms } from "../../testing/test-app.js";
import { PERIOD_END, useStripeBilling } from "./testing/billing-api.js";

/** A subscription's life through Stripe's webhooks: paid, past due, deleted, and Stripe failing meanwhile. */
describe.each(forms)("billing lifecycle against a Stripe fixture, Form %s", (form) => {
  const { stripe, app, deliver, count, subscribed, activeSubscription } = useStripeBilling(form);

  it("checkout completed + invoice paid → active pro at once (limits too, also for a cached key); a repeat changes nothing; deleted → free", async () => {
    const t = app();
    const { u, customer } = await subscribed("flow");
    const key = await issueKey(t, u.userId);
    const usage = () => t.call("GET", "/v1/account/usage", { headers: keyHeaders(form, key.secret) });
    expect((await usage()).body.data.plan).toBe("free"); // the key is cached now

    const subId = `sub_flow${form}`;
    activeSubscription(subId, customer);
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
      billing_enabled: true,
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
    const t = app();
    const { u, customer } = await subscribed("pastdue");
    const subId = `sub_late${form}`;
    activeSubscription(subId, customer, "price_business");
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
    const t = app();
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
    activeSubscription(subId, customer);
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
});
