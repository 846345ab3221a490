import type { ChildProcess } from "node:child_process";
import { createTestDatabase, type TestDatabase } from "@vantage/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startListening } from "../testing/controller-process.js";
import { useDataDirs } from "../testing/data-dirs.js";
import { planLimitsEnv } from "../testing/plan-limits.js";
import {
  invoiceObject,
  StripeFixture,
  signedDelivery,
  stripeEvent,
  subscriptionObject,
} from "../testing/stripe-fixture.js";
import { checkAnswer } from "../testing/test-app.js";
import { until } from "../testing/until.js";

const WEBHOOK_SECRET = "whsec_ZTJlLWJpbGxpbmctd2ViaG9vay1zZWNyZXQ";

/**
 * Billing end to end, per form: two controller processes on one PostgreSQL and a Stripe fixture. The user
 * subscribes on one controller, Stripe's signed webhooks reach the other, and the plan and its limits
 * apply on both at once (the key already cached on the first); deleting the subscription ends it.
 */
describe.each(["a", "b"] as const)("billing end to end, Form %s", (form) => {
  let tdb: TestDatabase;
  const stripe = new StripeFixture();
  const controllers: { child: ChildProcess; url: string }[] = [];
  const dataDir = useDataDirs("billing-e2e");

  beforeAll(async () => {
    await stripe.start();
    tdb = await createTestDatabase();
    for (let i = 0; i < 2; i++) {
      const { child, url } = await startListening(
        {
          DATABASE_URL: tdb.url,
          VANTAGE_API_FORM: form,
          VANTAGE_ACCESS_LOG: "false",
          VANTAGE_REGISTER_LIMIT_IP: "0",
          VANTAGE_DATA_DIR: dataDir(),
          VANTAGE_JWT_SECRET: "billing-e2e-jwt-secret-0123456789abcdef",
          VANTAGE_PLAN_LIMITS: planLimitsEnv({
            free: { lookups_per_minute: 6 },
            pro: { lookups_per_minute: 600 },
          }),
          STRIPE_SECRET_KEY: stripe.secretKey,
          STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
          STRIPE_PRICE_PRO: "price_e2e_pro",
          STRIPE_PRICE_BUSINESS: "price_e2e_business",
          STRIPE_API_BASE: stripe.url,
          VANTAGE_PUBLIC_URL: "https://vantage.example.net",
        },
        90_000, // one at a time: the first runs the migrations
      );
      controllers.push({ child, url });
    }
  }, 180_000);

  afterAll(async () => {
    for (const c of controllers) if (c.child.exitCode === null) c.child.kill("SIGKILL");
    await stripe.stop();
    await tdb?.drop();
  });

  const call = async (
    base: string,
    method: string,
    path: string,
    opts: { body?: string; headers?: Record<string, string> } = {},
  ) => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: opts.headers ?? {},
      ...(opts.body !== undefined ? { body: opts.body } : {}),
    });
    const json: unknown = await res.json();
    checkAnswer(form, method, path, res.status, json);
    // biome-ignore lint/suspicious/noExplicitAny: arbitrary JSON
    return { status: res.status, headers: res.headers, body: json as any };
  };
  const json = (headers: Record<string, string> = {}) => ({ "content-type": "application/json", ...headers });

  it("subscribe → checkout → signed webhooks → pro with its limits on both controllers; deleted → free", async () => {
    const [a, b] = controllers as [(typeof controllers)[0], (typeof controllers)[0]];
    const email = `billing-e2e-${form}-${Date.now()}@example.com`;
    const reg = await call(a.url, "POST", "/v1/auth/register", {
      headers: json(),
      body: JSON.stringify({ email, password: "correct horse battery" }),
    });
    expect(reg.status).toBe(201);
    const auth = { authorization: `Bearer ${reg.body.data.access_token}` };
    const created = await call(a.url, "POST", "/v1/account/api-keys", {
      headers: json(auth),
      body: JSON.stringify({ name: "e2e" }),
    });
    expect(created.status).toBe(201);
    const key =
      form === "a"
        ? { authorization: `Bearer ${created.body.data.key}` }
        : { "x-api-key": created.body.data.key };
    const lookupsLimit = async (base: string) => {
      const usage = await call(base, "GET", "/v1/account/usage", { headers: key });
      expect(usage.status).toBe(200);
      const rule = (usage.body.data.limits as { family: string; window: string; limit: number }[]).find(
        (l) => l.family === "lookups" && l.window === "minute",
      );
      return { plan: usage.body.data.plan as string, perMinute: rule?.limit };
    };
    // The key is looked up (and cached) on both controllers while the account is free.
    expect(await lookupsLimit(a.url)).toMatchObject({ plan: "free", perMinute: 6 });
    expect(await lookupsLimit(b.url)).toMatchObject({ plan: "free", perMinute: 6 });

    const checkout = await call(b.url, "POST", "/v1/billing/subscribe", {
      headers: json(auth),
      body: JSON.stringify({ plan: "pro" }),
    });
    expect(checkout.status).toBe(200);
    expect(checkout.body.data.checkout_url).toMatch(/^https:\/\/checkout\.stripe\.com\//);
    const session = stripe.sent("POST /v1/checkout/sessions").at(-1)!;
    expect(session.body["line_items[0][price]"]).toBe("price_e2e_pro");
    const customer = session.body.customer!;
    const userId = session.body.client_reference_id!;

    // Stripe: the customer paid; the subscription exists; the webhooks go to controller A.
    const subId = `sub_e2e_${form}`;
    stripe.subscriptions.set(subId, {
      id: subId,
      customer,
      price: "price_e2e_pro",
      status: "active",
      current_period_end: Math.floor(Date.now() / 1000) + 30 * 86_400,
    });
    const hook = (event: unknown) => {
      const d = signedDelivery(event, WEBHOOK_SECRET);
      return call(a.url, "POST", "/v1/billing/webhook", { headers: d.headers, body: d.payload });
    };
    const completed = await hook(
      stripeEvent("checkout.session.completed", {
        id: session.body.id ?? "cs_test_e2e",
        object: "checkout.session",
        mode: "subscription",
        customer,
        subscription: subId,
        client_reference_id: userId,
        metadata: { vantage_user_id: userId, vantage_plan: "pro" },
      }),
    );
    expect(completed.status).toBe(200);
    const paid = await hook(
      stripeEvent(
        "invoice.paid",
        invoiceObject({ id: `in_e2e_${form}`, customer, subscription: subId, status: "paid", amount: 2900 }),
      ),
    );
    expect(paid.status).toBe(200);

    // Controller B had the key cached as free: it sees pro (and pro's limits) within moments, not 10 s.
    const seenAt = Date.now();
    await until("pro on controller B", async () => (await lookupsLimit(b.url)).plan === "pro", 3000, 50);
    expect(Date.now() - seenAt).toBeLessThan(3000);
    expect(await lookupsLimit(b.url)).toEqual({ plan: "pro", perMinute: 600 });
    const sub = await call(b.url, "GET", "/v1/billing/subscription", { headers: auth });
    expect(sub.body.data).toMatchObject({ plan: "pro", status: "active", cancel_at_period_end: false });
    const invoices = await call(b.url, "GET", "/v1/billing/invoices", { headers: auth });
    expect(invoices.body.data.items).toEqual([
      expect.objectContaining({ id: `in_e2e_${form}`, amount: 29, currency: "USD", status: "paid" }),
    ]);

    // Stripe ends the subscription: back to free on both.
    stripe.subscriptions.get(subId)!.status = "canceled";
    const deleted = await hook(
      stripeEvent("customer.subscription.deleted", subscriptionObject(stripe.subscriptions.get(subId)!)),
    );
    expect(deleted.status).toBe(200);
    await until("free on controller B", async () => (await lookupsLimit(b.url)).plan === "free", 3000, 50);
    expect(await lookupsLimit(a.url)).toEqual({ plan: "free", perMinute: 6 });
    expect((await call(b.url, "GET", "/v1/billing/subscription", { headers: auth })).body.data).toMatchObject(
      {
        plan: "free",
        status: "canceled",
      },
    );
  }, 120_000);
});
