import { describe, expect, it } from "vitest";
import { graceUntil, majorAmount, planFromSubscriptions, planOfPrices } from "./plan-state.js";

const DAY = 86_400_000;
const now = Date.UTC(2026, 10, 25, 12);

describe("the plan an account's subscriptions give it", () => {
  it("active and trialing give their plan; canceled, unpaid, incomplete and paused give none", () => {
    expect(planFromSubscriptions([{ plan: "pro", status: "active", past_due_since: null }], now, DAY)).toBe(
      "pro",
    );
    expect(
      planFromSubscriptions([{ plan: "business", status: "trialing", past_due_since: null }], now, DAY),
    ).toBe("business");
    for (const status of ["canceled", "unpaid", "incomplete", "incomplete_expired", "paused"]) {
      expect(planFromSubscriptions([{ plan: "pro", status, past_due_since: null }], now, DAY), status).toBe(
        undefined,
      );
    }
  });

  it("past_due keeps the plan for the grace period from when it was first seen, then not", () => {
    const since = new Date(now - 2 * DAY);
    const s = { plan: "pro", status: "past_due", past_due_since: since };
    expect(planFromSubscriptions([s], now, 3 * DAY)).toBe("pro");
    expect(planFromSubscriptions([s], now, 2 * DAY)).toBe(undefined);
    expect(planFromSubscriptions([s], now, 0)).toBe(undefined);
    expect(graceUntil(s, 3 * DAY)?.getTime()).toBe(now + DAY);
    expect(graceUntil({ ...s, status: "active" }, 3 * DAY)).toBe(null);
  });

  it("the highest of several live subscriptions wins; a subscription without a plan price counts for nothing", () => {
    const subs = [
      { plan: "pro", status: "active", past_due_since: null },
      { plan: "business", status: "active", past_due_since: null },
      { plan: null, status: "active", past_due_since: null },
    ];
    expect(planFromSubscriptions(subs, now, DAY)).toBe("business");
    expect(planFromSubscriptions([subs[2]!], now, DAY)).toBe(undefined);
    expect(planFromSubscriptions([], now, DAY)).toBe(undefined);
  });
});

describe("prices and amounts", () => {
  it("maps the first item whose price is a plan's; unknown prices map to nothing", () => {
    const prices = { pro: "price_pro", business: "price_biz" };
    expect(planOfPrices(["price_metered", "price_biz"], prices)).toBe("business");
    expect(planOfPrices(["price_other"], prices)).toBe(undefined);
    expect(planOfPrices(["price_pro"], {})).toBe(undefined);
  });

  it("minor units → major units by the currency's decimals", () => {
    expect(majorAmount(1999, "usd")).toBe(19.99);
    expect(majorAmount(1999, "EUR")).toBe(19.99);
    expect(majorAmount(500, "jpy")).toBe(500);
    expect(majorAmount(12340, "kwd")).toBe(12.34);
    expect(majorAmount(0, "usd")).toBe(0);
  });
});
