import { describe, expect, it } from "vitest";
import { invoiceObject, stripeEvent, subscriptionObject } from "../../testing/stripe-fixture.js";
import { useStripeBilling } from "./testing/billing-api.js";

type Json = Record<string, unknown>;

/** `object` without the field at `path` (`a.b.0.c`). */
function without(object: Json, path: string): Json {
  const copy = structuredClone(object);
  const keys = path.split(".");
  let at: Json = copy;
  for (const k of keys.slice(0, -1)) at = at[k] as Json;
  delete at[keys.at(-1)!];
  return copy;
}

/**
 * Signed events that lack a field the handler reads (issue #26 item 9: an `invoice.paid` without `created`
 * answered 500): 400 `validation_error` naming the field when it is needed, 200 when the event can do
 * without it, never a 500; and what was stored before is kept as it was.
 */
describe("Stripe events missing the fields the webhook reads", () => {
  const { stripe, app, deliver, subscribed, activeSubscription } = useStripeBilling("b");

  it("each missing field: 400 validation_error or 200, never 500; nothing stored changes", async () => {
    const t = app();
    const { u, customer } = await subscribed("fields");
    const subId = "sub_fields";
    activeSubscription(subId, customer);
    const invoice = invoiceObject({
      id: "in_fields",
      customer,
      subscription: subId,
      status: "paid",
      amount: 1900,
    });
    const subscription = subscriptionObject(stripe.subscriptions.get(subId)!) as Json;
    const checkout = {
      id: "cs_fields",
      object: "checkout.session",
      customer,
      subscription: subId,
      client_reference_id: u.userId,
      metadata: { vantage_user_id: u.userId },
    };
    expect((await deliver(stripeEvent("invoice.paid", invoice))).status).toBe(200);

    const stored = async () => ({
      invoices: await t.db.kysely.selectFrom("billing_invoices").selectAll().orderBy("id").execute(),
      subscriptions: await t.db.kysely
        .selectFrom("billing_subscriptions")
        .select(["id", "user_id", "plan", "status", "current_period_end", "cancel_at_period_end"])
        .orderBy("id")
        .execute(),
      events: await t.db.kysely.selectFrom("billing_events").select("id").orderBy("id").execute(),
      plan: (await t.call("GET", "/v1/billing/subscription", { headers: u.headers })).body.data.plan,
    });
    const before = await stored();
    expect(before.invoices).toHaveLength(1);
    expect(before.subscriptions).toHaveLength(1);
    expect(before.plan).toBe("pro");

    const needed: [type: string, object: Json, field: string][] = [
      ...["amount_paid", "amount_due", "currency", "created", "status"].map(
        (f) => ["invoice.paid", invoice, f] as [string, Json, string],
      ),
      ["invoice.payment_failed", invoice, "created"],
      ...["id", "customer", "status", "items.data.0.price", "items.data.0.price.id"].map(
        (f) => ["customer.subscription.updated", subscription, f] as [string, Json, string],
      ),
    ];
    for (const [type, object, field] of needed) {
      const res = await deliver(stripeEvent(type, without(object, field)));
      expect(res.status, `${type} without ${field}`).toBe(400);
      expect(res.body.error.code).toBe("validation_error");
      expect(res.body.error.details).toContainEqual(
        expect.objectContaining({ path: `body.data.object.${field}` }),
      );
    }
    // Wrong rather than missing: a date that is no date, an amount that is text, no object at all.
    const wrong: [string, unknown][] = [
      ["invoice.paid", { ...invoice, created: 1e20 }],
      ["invoice.paid", { ...invoice, created: "yesterday" }],
      ["invoice.paid", { ...invoice, amount_paid: "19.00" }],
      ["invoice.paid", { ...invoice, currency: "us\u0000d" }],
      ["invoice.paid", null],
      ["customer.subscription.deleted", "sub_fields"],
      ["checkout.session.completed", null],
    ];
    for (const [type, object] of wrong) {
      const res = await deliver(stripeEvent(type, object));
      expect(res.status, `${type} with ${JSON.stringify(object)?.slice(0, 60)}`).toBe(400);
      expect(res.body.error.code).toBe("validation_error");
    }
    // The envelope: an event without an id or a type, or with no data.
    for (const field of ["id", "type"]) {
      const res = await deliver(without(stripeEvent("invoice.paid", invoice), field));
      expect(res.status, `event without ${field}`).toBe(400);
      expect(res.body.error.details).toContainEqual(expect.objectContaining({ path: `body.${field}` }));
    }
    expect((await deliver(without(stripeEvent("invoice.paid", invoice), "data"))).status).toBe(400);

    expect(await stored()).toEqual(before);

    // Fields the handler can do without: acknowledged (a checkout needs none; an invoice without an id is
    // a preview, one without its customer belongs to no account here). Other ids, so the stored rows stay.
    const other = invoiceObject({ id: "in_other", customer, status: "open", amount: 500 });
    const optional: [string, Json, string][] = [
      ...["id", "customer", "metadata", "parent", "hosted_invoice_url"].map(
        (f) => ["invoice.finalized", { ...other, metadata: {} }, f] as [string, Json, string],
      ),
      ...["customer", "subscription", "client_reference_id", "metadata"].map(
        (f) => ["checkout.session.completed", checkout, f] as [string, Json, string],
      ),
      ...["items", "cancel_at_period_end", "metadata"].map(
        (f) => ["customer.subscription.updated", subscription, f] as [string, Json, string],
      ),
    ];
    for (const [type, object, field] of optional) {
      const res = await deliver(stripeEvent(type, without(object, field)));
      expect(res.status, `${type} without ${field}`).toBe(200);
    }
    const after = await stored();
    expect(after.subscriptions).toEqual(before.subscriptions);
    expect(after.plan).toBe("pro");
    expect(after.invoices.find((i) => i.id === "in_fields")).toEqual(before.invoices[0]);
  });
});
