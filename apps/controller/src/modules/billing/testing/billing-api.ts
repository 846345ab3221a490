import { afterAll, beforeAll, expect } from "vitest";
import { newUser, type TestUser } from "../../../testing/accounts.js";
import { StripeFixture, signedDelivery } from "../../../testing/stripe-fixture.js";
import type { Form, TestApp } from "../../../testing/test-app.js";
import { useTestDb } from "../../../testing/use-test-db.js";

export const WEBHOOK_SECRET = "whsec_dGVzdC1zZWNyZXQtZm9yLXZhbnRhZ2UtYmlsbGluZw";
export const PERIOD_END = Math.floor(Date.UTC(2026, 11, 25) / 1000);

/**
 * For a `describe` of billing tests against the Stripe fixture: the fixture (started for the block), and a
 * new app per test (`app()`) configured for it; the helpers act on the latest app.
 */
export function useStripeBilling(form: Form) {
  const db = useTestDb("pglite");
  const stripe = new StripeFixture();
  let t: TestApp | undefined;
  beforeAll(async () => {
    await stripe.start();
  });
  afterAll(() => stripe.stop());
  const current = (): TestApp => {
    if (!t) throw new Error("call app() first");
    return t;
  };

  return {
    stripe,
    app(): TestApp {
      t = db.app(form, {
        STRIPE_SECRET_KEY: stripe.secretKey,
        STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
        STRIPE_PRICE_PRO: "price_pro",
        STRIPE_PRICE_BUSINESS: "price_business",
        STRIPE_API_BASE: stripe.url,
        VANTAGE_PUBLIC_URL: "https://vantage.example.com",
      });
      return t;
    },
    /** Posts `event` to the webhook, signed with the configured secret (or `opts.secret`). */
    deliver(event: unknown, opts: { secret?: string; timestamp?: number } = {}) {
      const d = signedDelivery(event, opts.secret ?? WEBHOOK_SECRET, opts.timestamp);
      return current().call("POST", "/v1/billing/webhook", { body: d.payload, headers: d.headers });
    },
    async count(table: "billing_events" | "billing_invoices" | "billing_subscriptions"): Promise<number> {
      const row = await current()
        .db.kysely.selectFrom(table)
        .select((eb) => eb.fn.countAll<string>().as("n"))
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },
    /** Puts an active subscription of `customer` to `price` (until PERIOD_END) in the fixture. */
    activeSubscription(id: string, customer: string, price = "price_pro"): void {
      stripe.subscriptions.set(id, { id, customer, price, status: "active", current_period_end: PERIOD_END });
    },
    /** Registers, subscribes (linking a Stripe customer) and answers the customer id. */
    async subscribed(tag: string): Promise<{ u: TestUser; customer: string }> {
      const app = current();
      const u = await newUser(app, tag);
      const res = await app.call("POST", "/v1/billing/subscribe", {
        headers: u.headers,
        body: { plan: "pro" },
      });
      expect(res.status).toBe(200);
      const customer = stripe.sent("POST /v1/checkout/sessions").at(-1)!.body.customer!;
      return { u, customer };
    },
  };
}
