import type { AppDeps, Module, Worker } from "../../deps.js";
import { requireAuth } from "../../http/auth.js";
import type { Authenticator } from "../../http/authenticator.js";
import { securedRoute } from "../../http/route-kit.js";
import type { Router } from "../../http/router.js";
import { endSubscriptionsNow } from "./account-closing.js";
import { registerCancelAndPortal } from "./routes/cancel.js";
import { registerGetSubscription } from "./routes/get-subscription.js";
import { registerListInvoices } from "./routes/list-invoices.js";
import { registerSubscribe } from "./routes/subscribe.js";
import { registerWebhook } from "./routes/webhook.js";
import { type BillingService, createBillingService } from "./service.js";
import { billingSettings } from "./stripe.js";
import type { PlanHolder } from "./sync.js";
import { createBillingWorker } from "./worker.js";

export { type PaidPlan, paidPlans } from "./plan-state.js";
export type { BillingService, InvoiceView, SubscriptionView } from "./service.js";

export interface BillingModule extends Module<BillingService> {
  /** Every Stripe setting is there: subscribing works (else those routes answer 503). */
  readonly configured: boolean;
  /** The scheduler role's share: past-due graces, stale subscriptions, daily use → Stripe's meters. */
  readonly worker: Worker & { tick(): Promise<void> };
  /**
   * Before the account is deleted: its live subscriptions end at Stripe at once. Throws 502/504 when Stripe
   * refuses or does not answer (delete nothing then); does nothing when billing is off.
   */
  closeAccount(userId: string): Promise<void>;
}

/**
 * Billing with Stripe (Checkout + Billing): subscribe through a Checkout page, Stripe's webhooks keep our
 * subscriptions and invoices in step and set the account's plan (the plans module's limits follow on every
 * controller at once), cancel at period end, the customer portal, and daily use reported to billing
 * meters. Without Stripe settings, reads still answer (the plan) and the rest is 503.
 */
export function createBilling(
  deps: AppDeps,
  services: { authenticator: Authenticator; accounts: PlanHolder },
): BillingModule {
  const settings = billingSettings(deps.config);
  const service = createBillingService({
    db: deps.db.kysely,
    log: deps.log,
    settings,
    accounts: services.accounts,
  });
  const worker = createBillingWorker({
    db: deps.db.kysely,
    log: deps.log,
    stripe: settings.stripe,
    sync: service.sync,
    graceMs: settings.graceMs,
    meterEvents: settings.meterEvents,
    reportEveryMs: settings.reportEveryMs,
  });
  if (settings.stripe && settings.missing.length > 0) {
    deps.log.warn(
      { missing: settings.missing },
      "billing is only partly configured: its write routes answer 503",
    );
  }
  const configured = settings.stripe !== undefined && settings.missing.length === 0;
  return {
    service,
    worker,
    workers: [{ role: "scheduler", name: "billing", start: () => worker.start(), stop: () => worker.stop() }],
    configured,
    closeAccount: (userId) =>
      endSubscriptionsNow({ db: deps.db.kysely, log: deps.log, stripe: settings.stripe }, userId),
    routes(app: Router) {
      const common = securedRoute(
        "billing",
        deps.config.VANTAGE_API_FORM,
        requireAuth(services.authenticator),
      );
      registerSubscribe(app, service, common);
      registerGetSubscription(app, service, common, configured);
      registerListInvoices(app, service, common);
      registerCancelAndPortal(app, service, common);
      registerWebhook(app, service);
    },
  };
}
