import type { Kysely } from "kysely";
import type { Logger } from "pino";
import type Stripe from "stripe";
import type { MeteredFamily } from "../../config.js";
import { logRoundFailure } from "../../db/availability.js";
import type { Database } from "../../db/schema.js";
import type { Worker } from "../../deps.js";
import { type PollLoop, startPollLoop } from "../../lib/poll-loop.js";
import * as repo from "./repo.js";
import type { BillingSync } from "./sync.js";

const DAY_MS = 86_400_000;
/** Stripe accepts meter events up to 35 days old; days older than this are not reported any more. */
const REPORT_DAYS = 30;
/** A day is reported once it has been over this long (the meters of every controller have flushed). */
const SETTLE_MS = 15 * 60_000;
/** A live subscription this long past its period end without news is read again from Stripe. */
const STALE_MS = 60 * 60_000;
const SWEEP_EVERY_MS = 60_000;

const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/**
 * Reports each account's daily use to Stripe's billing meters: one meter event per account, day and
 * family, for days over at least 15 minutes. The event's identifier (and idempotency key) is derived from
 * what it reports (`…_<units already reported>`), so a report sent again after a crash (before it was
 * recorded here) is dropped by Stripe as a duplicate, and use written late to a reported day goes out as
 * one more event for the difference. Answers how many events were sent.
 */
export async function reportUsage(deps: {
  db: Kysely<Database>;
  log: Logger;
  stripe: Stripe;
  meterEvents: Partial<Record<MeteredFamily, string>>;
  now: number;
  batch?: number;
}): Promise<number> {
  const families = Object.keys(deps.meterEvents) as MeteredFamily[];
  if (families.length === 0) return 0;
  const from = dayOf(deps.now - REPORT_DAYS * DAY_MS);
  const before = dayOf(deps.now - SETTLE_MS);
  const rows = await repo.unreportedUsage(deps.db, from, before, families, deps.batch ?? 1000);
  let sent = 0;
  for (const r of rows) {
    const identifier = `vantage_${r.user_id}_${r.day}_${r.family}_${r.reported}`;
    try {
      await deps.stripe.billing.meterEvents.create(
        {
          event_name: deps.meterEvents[r.family as MeteredFamily]!,
          identifier,
          // The last second of the day: the use belongs to that day's billing period.
          timestamp: Math.floor(Date.parse(`${r.day}T23:59:59Z`) / 1000),
          payload: { stripe_customer_id: r.customer_id, value: String(r.units - r.reported) },
        },
        { idempotencyKey: identifier },
      );
    } catch (err) {
      deps.log.warn(
        { err, user_id: r.user_id, day: r.day, family: r.family },
        "usage not reported to Stripe yet",
      );
      continue;
    }
    await repo.markReported(deps.db, r);
    sent++;
  }
  return sent;
}

/**
 * The scheduler role's share of billing: every minute, plans whose past-due grace ran out go back to
 * `free`, and live subscriptions long past their period end without a webhook are read again from Stripe;
 * every `reportEveryMs`, daily use goes to Stripe's billing meters.
 */
export function createBillingWorker(deps: {
  db: Kysely<Database>;
  log: Logger;
  stripe: Stripe | undefined;
  sync: BillingSync | undefined;
  graceMs: number;
  meterEvents: Partial<Record<MeteredFamily, string>>;
  reportEveryMs: number;
  now?: () => number;
}): Worker & { tick(): Promise<void> } {
  const now = deps.now ?? Date.now;
  let loop: PollLoop | undefined;
  let lastReport = 0;

  async function tick(): Promise<void> {
    const { stripe, sync } = deps;
    if (!stripe || !sync) return;
    const t = now();
    for (const userId of await repo.expiredGraces(deps.db, new Date(t - deps.graceMs))) {
      await sync.applyPlan(userId);
    }
    for (const id of await repo.staleSubscriptions(deps.db, new Date(t), STALE_MS)) {
      try {
        await sync.syncSubscription(id);
      } catch (err) {
        deps.log.warn({ err, subscription: id }, "could not read a subscription from Stripe; next sweep");
      }
    }
    if (t - lastReport >= deps.reportEveryMs) {
      lastReport = t;
      const sent = await reportUsage({
        db: deps.db,
        log: deps.log,
        stripe,
        meterEvents: deps.meterEvents,
        now: t,
      });
      if (sent > 0) deps.log.info({ events: sent }, "daily use reported to Stripe");
    }
  }

  return {
    tick,
    async start() {
      if (!deps.stripe || loop) return;
      loop = startPollLoop({
        round: tick,
        everyMs: Math.min(SWEEP_EVERY_MS, deps.reportEveryMs),
        onError: (err) => logRoundFailure(deps.log, err, "billing sweep failed; next one in a minute"),
      });
    },
    async stop() {
      await loop?.stop();
      loop = undefined;
    },
  };
}
