import type { Kysely } from "kysely";
import type { Logger } from "pino";
import type Stripe from "stripe";
import type { Database } from "../../db/schema.js";
import type { PlanName } from "../../lib/plans.js";
import { type PaidPlan, planFromSubscriptions, planOfPrices } from "./plan-state.js";
import * as repo from "./repo.js";
import { stripeFailure, stripeMissing } from "./stripe.js";

/** What billing asks of accounts: the plan on record, and setting it (every controller's limits follow). */
export interface PlanHolder {
  planOf(userId: string): Promise<string | undefined>;
  setPlan(userId: string, plan: PlanName): Promise<unknown>;
}

export interface SyncDeps {
  db: Kysely<Database>;
  log: Logger;
  stripe: Stripe;
  prices: Partial<Record<PaidPlan, string>>;
  graceMs: number;
  accounts: PlanHolder;
  now: () => number;
}

const idOf = (x: string | { id: string } | null | undefined): string | undefined =>
  typeof x === "string" ? x : (x?.id ?? undefined);

/**
 * Keeps our copy of Stripe's state: subscriptions (read again from Stripe, whatever the event said, so
 * events handled out of order still end on Stripe's latest), invoices, and the account's plan.
 */
export function createSync(deps: SyncDeps) {
  const { db, log, stripe } = deps;

  /** The account a Stripe customer belongs to: our link, else the id we put in the metadata. */
  async function accountOf(customerId: string | undefined, metadata: Stripe.Metadata | null | undefined) {
    if (customerId) {
      const linked = await repo.userOfCustomer(db, customerId);
      if (linked) return linked;
    }
    const claimed = metadata?.vantage_user_id;
    if (!claimed || !(await repo.emailOf(db, claimed))) return undefined;
    if (customerId) await repo.saveCustomer(db, claimed, customerId);
    return claimed;
  }

  /** Sets the account's plan from its subscriptions, when it differs from the one on record. */
  async function applyPlan(userId: string): Promise<void> {
    const subs = await repo.subscriptionsOf(db, userId);
    const plan = planFromSubscriptions(subs, deps.now(), deps.graceMs) ?? "free";
    const before = await deps.accounts.planOf(userId);
    if (before === undefined || before === plan) return;
    await deps.accounts.setPlan(userId, plan);
    log.info({ user_id: userId, from: before, to: plan }, "plan changed by billing");
  }

  /** Stores a subscription as Stripe has it now (`fallback`: the event's copy, if Stripe no longer has it). */
  async function syncSubscription(id: string, fallback?: Stripe.Subscription): Promise<string | undefined> {
    const syncedAt = new Date(deps.now());
    let sub: Stripe.Subscription;
    try {
      sub = await stripe.subscriptions.retrieve(id);
    } catch (err) {
      if (fallback && stripeMissing(err)) {
        sub = fallback;
      } else {
        throw stripeFailure(err);
      }
    }
    const userId = await accountOf(idOf(sub.customer), sub.metadata);
    if (!userId) {
      log.warn(
        { subscription: sub.id, customer: idOf(sub.customer) },
        "subscription of no account here: ignored",
      );
      return undefined;
    }
    const items = sub.items?.data ?? [];
    const plan = planOfPrices(
      items.map((i) => i.price.id),
      deps.prices,
    );
    if (!plan) log.warn({ subscription: sub.id }, "subscription without a plan's price: it gives no plan");
    const ends = items.map((i) => i.current_period_end).filter((t): t is number => typeof t === "number");
    await repo.upsertSubscription(db, {
      id: sub.id,
      user_id: userId,
      plan: plan ?? null,
      status: sub.status,
      current_period_end: ends.length > 0 ? new Date(Math.max(...ends) * 1000) : null,
      cancel_at_period_end: sub.cancel_at_period_end === true,
      synced_at: syncedAt,
    });
    await applyPlan(userId);
    return userId;
  }

  /** Stores an invoice (the amount paid once paid, else the amount due) and refreshes its subscription. */
  async function syncInvoice(inv: Stripe.Invoice): Promise<void> {
    if (!inv.id) {
      log.info({ customer: idOf(inv.customer) }, "invoice without an id (a preview): nothing to store");
      return;
    }
    const subscriptionId = idOf(inv.parent?.subscription_details?.subscription);
    const userId = await accountOf(idOf(inv.customer), inv.metadata);
    if (!userId) {
      log.warn({ invoice: inv.id, customer: idOf(inv.customer) }, "invoice of no account here: ignored");
      return;
    }
    await repo.upsertInvoice(db, {
      id: inv.id,
      user_id: userId,
      subscription_id: subscriptionId ?? null,
      amount_minor: inv.status === "paid" ? inv.amount_paid : inv.amount_due,
      currency: inv.currency,
      status: inv.status ?? "draft",
      hosted_invoice_url: inv.hosted_invoice_url ?? null,
      created_at: new Date(inv.created * 1000),
    });
    if (subscriptionId) await syncSubscription(subscriptionId);
  }

  /** A completed checkout: links the customer to the account named in it, then reads the subscription. */
  async function syncCheckout(session: Stripe.Checkout.Session): Promise<void> {
    const claimed = session.client_reference_id ?? session.metadata?.vantage_user_id;
    const customerId = idOf(session.customer);
    if (claimed && customerId && (await repo.emailOf(db, claimed))) {
      await repo.saveCustomer(db, claimed, customerId);
    }
    const subscriptionId = idOf(session.subscription);
    if (subscriptionId) await syncSubscription(subscriptionId);
  }

  return { syncSubscription, syncInvoice, syncCheckout, applyPlan };
}

export type BillingSync = ReturnType<typeof createSync>;
