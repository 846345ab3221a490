import type { Kysely } from "kysely";
import type { Logger } from "pino";
import type Stripe from "stripe";
import type { Database } from "../../db/schema.js";
import * as repo from "./repo.js";
import { stripeFailure, stripeMissing } from "./stripe.js";

/**
 * Ends the account's live subscriptions at the payment provider at once (not at the period's end), before
 * the account is deleted: a deleted account must not be billed again. Without Stripe (billing off) there
 * is nothing to end. Stripe refusing or not answering → 502/504 (`stripeFailure`), and the caller deletes
 * nothing. A subscription Stripe no longer knows is ended already. Our rows go with the account.
 */
export async function endSubscriptionsNow(
  deps: { db: Kysely<Database>; log: Logger; stripe: Stripe | undefined },
  userId: string,
): Promise<void> {
  const { stripe } = deps;
  if (!stripe) return;
  const subs = await repo.subscriptionsOf(deps.db, userId);
  const live = subs.filter((s) => (repo.liveStatuses as readonly string[]).includes(s.status));
  for (const s of live) {
    try {
      await stripe.subscriptions.cancel(s.id);
    } catch (err) {
      if (stripeMissing(err)) continue;
      deps.log.error(
        { err, user_id: userId },
        "stripe: could not cancel a subscription of a deleted account",
      );
      throw stripeFailure(err);
    }
    deps.log.info({ user_id: userId, subscription: s.id }, "subscription cancelled: the account is deleted");
  }
}
