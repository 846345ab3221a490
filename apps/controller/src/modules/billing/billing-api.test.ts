import { describe, expect, it } from "vitest";
import { newUser } from "../../testing/accounts.js";
import { invoiceObject, signedDelivery, stripeEvent } from "../../testing/stripe-fixture.js";
import { forms } from "../../testing/test-app.js";
import { useTestDb } from "../../testing/use-test-db.js";
import { useStripeBilling, WEBHOOK_SECRET } from "./testing/billing-api.js";

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
      billing_enabled: false,
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
  const { stripe, app, deliver, count, subscribed } = useStripeBilling(form);

  it("subscribe: 400 for a plan not sold or an extra field, 401 without credentials", async () => {
    const t = app();
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
    const t = app();
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
    const t = app();
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

  it("invoices page newest first, in the form's page fields; another account sees none of them", async () => {
    const t = app();
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
