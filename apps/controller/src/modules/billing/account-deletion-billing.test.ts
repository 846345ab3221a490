import { describe, expect, it } from "vitest";
import { issueKey, keyHeaders, newUser, PASSWORD } from "../../testing/accounts.js";
import { stripeEvent } from "../../testing/stripe-fixture.js";
import { forms, type TestApp } from "../../testing/test-app.js";
import { useStripeBilling } from "./testing/billing-api.js";

const profile = (t: TestApp, headers: Record<string, string>) =>
  t.call("GET", "/v1/account/profile", { headers });

/**
 * `DELETE /v1/account` (the accounts module's route) as billing takes part in it: a paid subscription
 * ends at the provider before the account goes; a provider failure deletes nothing.
 */
describe.each(forms)("account deletion with billing (Stripe fixture), Form %s", (form) => {
  const { stripe, app, deliver, subscribed, activeSubscription, count } = useStripeBilling(form);

  /** A user with an active pro subscription, linked as Stripe's checkout webhook links it. */
  async function payingUser(tag: string) {
    const t = app();
    const { u, customer } = await subscribed(tag);
    const subId = `sub_${tag}${form}`;
    activeSubscription(subId, customer);
    const done = await deliver(
      stripeEvent("checkout.session.completed", {
        id: `cs_test_${tag}${form}`,
        object: "checkout.session",
        mode: "subscription",
        customer,
        subscription: subId,
        client_reference_id: u.userId,
        metadata: { vantage_user_id: u.userId, vantage_plan: "pro" },
      }),
    );
    expect(done.status).toBe(200);
    expect((await t.call("GET", "/v1/billing/subscription", { headers: u.headers })).body.data.status).toBe(
      "active",
    );
    return { t, u, subId };
  }

  it("cancels the live subscription at once (not at the period's end), then deletes", async () => {
    const { t, u, subId } = await payingUser("paid");
    const res = await t.call("DELETE", "/v1/account", { headers: u.headers, body: { password: PASSWORD } });
    expect(res.status, res.text).toBe(200);
    expect(stripe.sent(`DELETE /v1/subscriptions/${subId}`)).toHaveLength(1);
    expect(stripe.subscriptions.get(subId)?.status).toBe("canceled");
    expect(await count("billing_subscriptions")).toBe(0);
    expect((await profile(t, u.headers)).status).toBe(401);
  });

  it("the provider failing → 502, and the account, its subscription and its session stay", async () => {
    const { t, u, subId } = await payingUser("fail");
    const key = await issueKey(t, u.userId);
    stripe.failing.add(`DELETE /v1/subscriptions/${subId}`);
    try {
      const res = await t.call("DELETE", "/v1/account", { headers: u.headers, body: { password: PASSWORD } });
      expect(res.status, res.text).toBe(502);
      expect(res.body.error.code).toBe("upstream_error");
    } finally {
      stripe.failing.delete(`DELETE /v1/subscriptions/${subId}`);
    }
    expect(stripe.subscriptions.get(subId)?.status).toBe("active");
    expect((await profile(t, u.headers)).status).toBe(200);
    expect((await profile(t, keyHeaders(form, key.secret))).status).toBe(200);
    const sub = await t.call("GET", "/v1/billing/subscription", { headers: u.headers });
    expect(sub.body.data).toMatchObject({ plan: "pro", status: "active" });
    // Once the provider answers again, the same request goes through.
    const retry = await t.call("DELETE", "/v1/account", { headers: u.headers, body: { password: PASSWORD } });
    expect(retry.status, retry.text).toBe(200);
    expect(stripe.subscriptions.get(subId)?.status).toBe("canceled");
  });

  it("an account without a subscription asks nothing of the provider", async () => {
    const t = app();
    const u = await newUser(t, "free");
    const before = stripe.requests.length;
    const res = await t.call("DELETE", "/v1/account", { headers: u.headers, body: { password: PASSWORD } });
    expect(res.status).toBe(200);
    expect(stripe.requests.length).toBe(before);
  });
});
