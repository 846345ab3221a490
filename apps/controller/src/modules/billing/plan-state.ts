/** The plans a subscription can buy. */
export const paidPlans = ["pro", "business"] as const;
export type PaidPlan = (typeof paidPlans)[number];

/** A stored subscription, as far as the plan is concerned. */
export interface SubscriptionState {
  plan: string | null;
  status: string;
  past_due_since: Date | null;
}

/** Statuses under which the subscription's plan applies with no conditions. */
const paying = new Set(["active", "trialing"]);
/** Higher wins when an account holds more than one live subscription. */
const rank: Record<string, number> = { free: 0, pro: 1, business: 2 };

/**
 * The plan an account's subscriptions give it at `now`:
 * - `active`, `trialing`: the subscription's plan;
 * - `past_due`: the plan still, for `graceMs` from when it was first seen past due (Stripe retries the
 *   payment meanwhile), then `free`;
 * - anything else (`canceled`, `unpaid`, `incomplete`, `incomplete_expired`, `paused`): nothing.
 * Undefined when no subscription gives a plan: the account is `free`.
 */
export function planFromSubscriptions(
  subs: readonly SubscriptionState[],
  now: number,
  graceMs: number,
): PaidPlan | undefined {
  let best: PaidPlan | undefined;
  for (const s of subs) {
    if (!s.plan || !(paidPlans as readonly string[]).includes(s.plan)) continue;
    const applies =
      paying.has(s.status) ||
      (s.status === "past_due" && s.past_due_since !== null && now < s.past_due_since.getTime() + graceMs);
    if (applies && (best === undefined || rank[s.plan]! > rank[best]!)) best = s.plan as PaidPlan;
  }
  return best;
}

/** When a past-due subscription's grace ends; null when it is not past due. */
export function graceUntil(s: SubscriptionState, graceMs: number): Date | null {
  return s.status === "past_due" && s.past_due_since ? new Date(s.past_due_since.getTime() + graceMs) : null;
}

/** The plan a subscription's prices buy: the first item whose price is a plan's. */
export function planOfPrices(
  priceIds: readonly string[],
  prices: Partial<Record<PaidPlan, string>>,
): PaidPlan | undefined {
  for (const id of priceIds) {
    for (const plan of paidPlans) if (prices[plan] === id) return plan;
  }
  return undefined;
}

/** Currencies Stripe counts in whole units (no minor unit) and in thousandths. */
const zeroDecimal = new Set("bif clp djf gnf jpy kmf krw mga pyg rwf ugx vnd vuv xaf xof xpf".split(" "));
const threeDecimal = new Set("bhd jod kwd omr tnd".split(" "));

/** Stripe's minor-unit integer → the amount in the currency's major unit (1999 usd → 19.99). */
export function majorAmount(minor: number, currency: string): number {
  const c = currency.toLowerCase();
  const digits = zeroDecimal.has(c) ? 0 : threeDecimal.has(c) ? 3 : 2;
  return Number((minor / 10 ** digits).toFixed(digits));
}
