import type { Kysely } from "kysely";
import type { Logger } from "pino";
import type Stripe from "stripe";
import type { Database } from "../../db/schema.js";
import { ApiError, validationError } from "../../http/errors.js";
import {
  checkoutSessionObject,
  eventEnvelope,
  eventOf,
  invoiceObject,
  subscriptionObject,
} from "./event-schemas.js";
import { graceUntil, majorAmount, type PaidPlan } from "./plan-state.js";
import * as repo from "./repo.js";
import { type BillingSettings, notConfigured, stripeFailure } from "./stripe.js";
import { type BillingSync, createSync, type PlanHolder } from "./sync.js";

/** The account's subscription as the API shows it. */
export interface SubscriptionView {
  /** The plan whose limits apply now (`free`, `pro`, `business`), whoever set it. */
  plan: string;
  /** The Stripe subscription's status (active, trialing, past_due, canceled, …); `none` without one. */
  status: string;
  current_period_end: Date | null;
  cancel_at_period_end: boolean;
  /** When a past-due subscription's plan lapses unless the payment goes through. */
  grace_until: Date | null;
}

export interface InvoiceView {
  id: string;
  amount: number;
  amount_minor: number;
  currency: string;
  status: string;
  created_at: Date;
  hosted_invoice_url: string | null;
}

export interface BillingService {
  subscription(userId: string): Promise<SubscriptionView>;
  invoices(userId: string, page: number, limit: number): Promise<{ items: InvoiceView[]; total: number }>;
  /** A Checkout page for `plan`; 409 while a subscription is live, 503 without Stripe settings. */
  subscribe(userId: string, plan: PaidPlan): Promise<{ checkout_url: string; expires_at: Date | null }>;
  /** Cancels the live subscription at the end of its period; 409 without one. */
  cancel(userId: string): Promise<SubscriptionView>;
  /** A Stripe customer portal page (payment method, plan change, invoices); 409 before any checkout. */
  portal(userId: string): Promise<{ portal_url: string }>;
  /**
   * A webhook delivery: 400 `invalid_signature` unless Stripe signed it within 5 minutes; 400
   * `validation_error` (nothing stored) when a handled event lacks a field the handler reads.
   */
  webhook(rawBody: string, signature: string | undefined): Promise<{ received: true; duplicate: boolean }>;
}

/** Webhook signatures older than this are refused (replays); Stripe's own default. */
const SIGNATURE_TOLERANCE_S = 300;

const liveOf = (subs: repo.SubscriptionRow[]) =>
  subs.find((s) => (repo.liveStatuses as readonly string[]).includes(s.status));

export function createBillingService(deps: {
  db: Kysely<Database>;
  log: Logger;
  settings: BillingSettings;
  accounts: PlanHolder;
  now?: () => number;
}): BillingService & { sync: BillingSync | undefined } {
  const { db, log, settings } = deps;
  const now = deps.now ?? Date.now;
  const stripe = settings.stripe;
  const sync = stripe
    ? createSync({
        db,
        log,
        stripe,
        prices: settings.prices,
        graceMs: settings.graceMs,
        accounts: deps.accounts,
        now,
      })
    : undefined;

  const configured = (plan?: PaidPlan): { stripe: Stripe; sync: BillingSync } => {
    const missing = [...settings.missing];
    if (plan && !settings.prices[plan] && !missing.includes(`STRIPE_PRICE_${plan.toUpperCase()}`)) {
      missing.push(`STRIPE_PRICE_${plan.toUpperCase()}`);
    }
    if (!stripe || !sync || missing.length > 0) throw notConfigured(missing);
    return { stripe, sync };
  };

  async function view(userId: string): Promise<SubscriptionView> {
    const [plan, subs] = await Promise.all([deps.accounts.planOf(userId), repo.subscriptionsOf(db, userId)]);
    const current = liveOf(subs) ?? subs[0];
    return {
      plan: plan ?? "free",
      status: current?.status ?? "none",
      current_period_end: current?.current_period_end ?? null,
      cancel_at_period_end: current?.cancel_at_period_end ?? false,
      grace_until: current ? graceUntil(current, settings.graceMs) : null,
    };
  }

  /** The account's Stripe customer, created on first use (one per account, even for concurrent calls). */
  async function customerFor(s: Stripe, userId: string): Promise<string> {
    const known = await repo.customerOf(db, userId);
    if (known) return known;
    const email = await repo.emailOf(db, userId);
    if (!email) throw new ApiError("not_found", "no such account");
    try {
      // The idempotency key makes concurrent first calls (and the SDK's retries) get one customer.
      const customer = await s.customers.create(
        { email, metadata: { vantage_user_id: userId } },
        { idempotencyKey: `vantage-customer-${userId}` },
      );
      return await repo.saveCustomer(db, userId, customer.id);
    } catch (err) {
      if (err instanceof ApiError) throw err;
      log.error({ err }, "stripe: could not create a customer");
      throw stripeFailure(err);
    }
  }

  return {
    sync,
    subscription: view,

    async invoices(userId, page, limit) {
      const { items, total } = await repo.listInvoices(db, userId, page, limit);
      return {
        total,
        items: items.map((i) => ({
          id: i.id,
          amount: majorAmount(Number(i.amount_minor), i.currency),
          amount_minor: Number(i.amount_minor),
          currency: i.currency.toUpperCase(),
          status: i.status,
          created_at: i.created_at,
          hosted_invoice_url: i.hosted_invoice_url,
        })),
      };
    },

    async subscribe(userId, plan) {
      const { stripe: s } = configured(plan);
      const live = liveOf(await repo.subscriptionsOf(db, userId));
      if (live) {
        throw new ApiError(
          "conflict",
          `the account already has a ${live.status} ${live.plan ?? ""} subscription: change the plan or the ` +
            "payment method in the customer portal (POST /v1/billing/portal), or cancel it (POST /v1/billing/cancel)",
        );
      }
      const customer = await customerFor(s, userId);
      const lineItems: Stripe.Checkout.SessionCreateParams.LineItem[] = [
        { price: settings.prices[plan]!, quantity: 1 },
      ];
      if (settings.meteredPrice) lineItems.push({ price: settings.meteredPrice });
      try {
        const session = await s.checkout.sessions.create({
          mode: "subscription",
          customer,
          client_reference_id: userId,
          line_items: lineItems,
          // Back to the dashboard's plan page, which shows the subscription once Stripe's webhook arrives.
          success_url: `${settings.publicUrl}/#/account?checkout=done`,
          cancel_url: `${settings.publicUrl}/#/account?checkout=cancelled`,
          metadata: { vantage_user_id: userId, vantage_plan: plan },
          subscription_data: { metadata: { vantage_user_id: userId, vantage_plan: plan } },
        });
        if (!session.url) throw new Error("checkout session without a url");
        return {
          checkout_url: session.url,
          expires_at: session.expires_at ? new Date(session.expires_at * 1000) : null,
        };
      } catch (err) {
        log.error({ err }, "stripe: could not create a checkout session");
        throw stripeFailure(err);
      }
    },

    async cancel(userId) {
      const { stripe: s, sync: sy } = configured();
      const live = liveOf(await repo.subscriptionsOf(db, userId));
      if (!live) throw new ApiError("conflict", "the account has no active subscription to cancel");
      if (!live.cancel_at_period_end) {
        try {
          await s.subscriptions.update(live.id, { cancel_at_period_end: true });
        } catch (err) {
          log.error({ err }, "stripe: could not cancel a subscription");
          throw stripeFailure(err);
        }
        await sy.syncSubscription(live.id);
      }
      return view(userId);
    },

    async portal(userId) {
      const { stripe: s } = configured();
      const customer = await repo.customerOf(db, userId);
      if (!customer) {
        throw new ApiError(
          "conflict",
          "the account has no billing record yet: subscribe first (POST /v1/billing/subscribe)",
        );
      }
      try {
        const session = await s.billingPortal.sessions.create({
          customer,
          return_url: `${settings.publicUrl}/#/account`,
        });
        return { portal_url: session.url };
      } catch (err) {
        log.error({ err }, "stripe: could not open a customer portal session");
        throw stripeFailure(err);
      }
    },

    async webhook(rawBody, signature) {
      const { stripe: s, sync: sy } = configured();
      if (!signature) {
        throw new ApiError("invalid_signature", "the Stripe-Signature header is missing");
      }
      let event: Stripe.Event;
      try {
        event = await s.webhooks.constructEventAsync(
          rawBody,
          signature,
          settings.webhookSecret!,
          SIGNATURE_TOLERANCE_S,
        );
      } catch {
        throw new ApiError(
          "invalid_signature",
          "the Stripe-Signature header does not match the body, or is older than 5 minutes",
        );
      }
      const envelope = eventEnvelope.safeParse(event);
      if (!envelope.success) throw validationError(envelope.error, "json");
      if (await repo.eventSeen(db, event.id)) return { received: true, duplicate: true };
      await handle(sy, event);
      await repo.markEvent(db, event.id, event.type);
      return { received: true, duplicate: false };
    },
  };

  /**
   * What each event type does; the others are acknowledged and ignored. The event's object is checked
   * first (`event-schemas.ts`): one that lacks a field read below is refused before anything is stored.
   */
  async function handle(sy: BillingSync, event: Stripe.Event): Promise<void> {
    const check = (schema: Parameters<typeof eventOf>[0]) => {
      const parsed = eventOf(schema).safeParse(event);
      if (parsed.success) return;
      log.warn({ event_id: event.id, type: event.type }, "stripe event refused: a field it needs is missing");
      throw validationError(parsed.error, "json");
    };
    switch (event.type) {
      case "checkout.session.completed":
      case "checkout.session.async_payment_succeeded":
        check(checkoutSessionObject);
        await sy.syncCheckout(event.data.object);
        return;
      case "customer.subscription.created":
      case "customer.subscription.updated":
      case "customer.subscription.deleted":
      case "customer.subscription.paused":
      case "customer.subscription.resumed":
        check(subscriptionObject);
        await sy.syncSubscription(event.data.object.id, event.data.object);
        return;
      case "invoice.paid":
      case "invoice.payment_failed":
      case "invoice.finalized":
      case "invoice.voided":
      case "invoice.marked_uncollectible":
      case "invoice.updated":
        check(invoiceObject);
        await sy.syncInvoice(event.data.object);
        return;
      default:
        log.debug({ type: event.type }, "stripe event not handled");
    }
  }
}
