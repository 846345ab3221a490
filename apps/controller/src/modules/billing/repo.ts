import { type Insertable, type Kysely, type Selectable, sql } from "kysely";
import type { Database } from "../../db/schema.js";
import type { BillingInvoicesTable, BillingSubscriptionsTable } from "../../db/tables/billing.js";

type Db = Kysely<Database>;
export type SubscriptionRow = Selectable<BillingSubscriptionsTable>;
export type InvoiceRow = Selectable<BillingInvoicesTable>;

/** Statuses of a subscription that still holds (or may again hold, past due) its plan. */
export const liveStatuses = ["active", "trialing", "past_due"] as const;

export async function emailOf(db: Db, userId: string): Promise<string | undefined> {
  return (await db.selectFrom("users").select("email").where("id", "=", userId).executeTakeFirst())?.email;
}

export async function customerOf(db: Db, userId: string): Promise<string | undefined> {
  const row = await db
    .selectFrom("billing_customers")
    .select("stripe_customer_id")
    .where("user_id", "=", userId)
    .executeTakeFirst();
  return row?.stripe_customer_id;
}

export async function userOfCustomer(db: Db, customerId: string): Promise<string | undefined> {
  const row = await db
    .selectFrom("billing_customers")
    .select("user_id")
    .where("stripe_customer_id", "=", customerId)
    .executeTakeFirst();
  return row?.user_id;
}

/** Links the account to its Stripe customer (the first link stays); the customer id now on record. */
export async function saveCustomer(db: Db, userId: string, customerId: string): Promise<string> {
  await db
    .insertInto("billing_customers")
    .values({ user_id: userId, stripe_customer_id: customerId })
    .onConflict((oc) => oc.doNothing())
    .execute();
  return (await customerOf(db, userId)) ?? customerId;
}

/**
 * Writes a subscription's state as read from Stripe at `synced_at`, unless a later read is already stored
 * (webhooks arrive in any order and may be handled side by side). `past_due_since` keeps the first time it
 * was seen past due, so the grace period does not restart with every retry of the payment.
 */
export async function upsertSubscription(
  db: Db,
  s: Omit<SubscriptionRow, "created_at" | "updated_at" | "past_due_since">,
): Promise<void> {
  await db
    .insertInto("billing_subscriptions")
    .values({ ...s, past_due_since: s.status === "past_due" ? s.synced_at : null })
    .onConflict((oc) =>
      oc
        .column("id")
        .doUpdateSet({
          user_id: (eb) => eb.ref("excluded.user_id"),
          plan: (eb) => eb.ref("excluded.plan"),
          status: (eb) => eb.ref("excluded.status"),
          current_period_end: (eb) => eb.ref("excluded.current_period_end"),
          cancel_at_period_end: (eb) => eb.ref("excluded.cancel_at_period_end"),
          past_due_since: sql`case when excluded.status = 'past_due'
            then coalesce(billing_subscriptions.past_due_since, excluded.past_due_since) end`,
          synced_at: (eb) => eb.ref("excluded.synced_at"),
          updated_at: sql`now()`,
        })
        .where("billing_subscriptions.synced_at", "<=", (eb) => eb.ref("excluded.synced_at")),
    )
    .execute();
}

/** The account's subscriptions, most recently changed first. */
export async function subscriptionsOf(db: Db, userId: string): Promise<SubscriptionRow[]> {
  return db
    .selectFrom("billing_subscriptions")
    .selectAll()
    .where("user_id", "=", userId)
    .orderBy("updated_at", "desc")
    .orderBy("id", "desc")
    .execute();
}

/** Accounts whose past-due grace has run out while their plan is still a paid one. */
export async function expiredGraces(db: Db, before: Date): Promise<string[]> {
  const rows = await db
    .selectFrom("billing_subscriptions as s")
    .innerJoin("users as u", "u.id", "s.user_id")
    .select("s.user_id")
    .distinct()
    .where("s.status", "=", "past_due")
    .where("s.past_due_since", "<=", before)
    .where("u.plan", "<>", "free")
    .limit(500)
    .execute();
  return rows.map((r) => r.user_id);
}

/**
 * Live subscriptions whose period ended `staleMs` ago without news from Stripe (a renewal or an end whose
 * webhook never arrived): read again from Stripe.
 */
export async function staleSubscriptions(db: Db, now: Date, staleMs: number): Promise<string[]> {
  const before = new Date(now.getTime() - staleMs);
  const rows = await db
    .selectFrom("billing_subscriptions")
    .select("id")
    .where("status", "in", [...liveStatuses])
    .where("current_period_end", "<", before)
    .where("synced_at", "<", before)
    .orderBy("current_period_end")
    .limit(50)
    .execute();
  return rows.map((r) => r.id);
}

export async function upsertInvoice(db: Db, inv: Insertable<BillingInvoicesTable>): Promise<void> {
  await db
    .insertInto("billing_invoices")
    .values(inv)
    .onConflict((oc) =>
      oc.column("id").doUpdateSet({
        amount_minor: (eb) => eb.ref("excluded.amount_minor"),
        currency: (eb) => eb.ref("excluded.currency"),
        status: (eb) => eb.ref("excluded.status"),
        hosted_invoice_url: (eb) => eb.ref("excluded.hosted_invoice_url"),
        subscription_id: (eb) => eb.ref("excluded.subscription_id"),
        updated_at: sql`now()`,
      }),
    )
    .execute();
}

/** One page of the account's invoices, newest first, and how many there are. */
export async function listInvoices(
  db: Db,
  userId: string,
  page: number,
  limit: number,
): Promise<{ items: InvoiceRow[]; total: number }> {
  const [items, count] = await Promise.all([
    db
      .selectFrom("billing_invoices")
      .selectAll()
      .where("user_id", "=", userId)
      .orderBy("created_at", "desc")
      .orderBy("id", "desc")
      .limit(limit)
      .offset((page - 1) * limit)
      .execute(),
    db
      .selectFrom("billing_invoices")
      .select((eb) => eb.fn.countAll<string | number>().as("n"))
      .where("user_id", "=", userId)
      .executeTakeFirstOrThrow(),
  ]);
  return { items, total: Number(count.n) };
}

export async function eventSeen(db: Db, id: string): Promise<boolean> {
  return (
    (await db.selectFrom("billing_events").select("id").where("id", "=", id).executeTakeFirst()) !== undefined
  );
}

export async function markEvent(db: Db, id: string, type: string): Promise<void> {
  await db
    .insertInto("billing_events")
    .values({ id, type })
    .onConflict((oc) => oc.doNothing())
    .execute();
}

/** A day of an account's use not yet (or not wholly) reported to Stripe. */
export interface UnreportedDay {
  user_id: string;
  customer_id: string;
  day: string;
  family: string;
  units: number;
  reported: number;
}

/**
 * Days in [`fromDay`, `beforeDay`) of the given families where the account (one with a Stripe customer)
 * used more than was reported; `usage_daily` is the plans module's meter, read here as its published table.
 */
export async function unreportedUsage(
  db: Db,
  fromDay: string,
  beforeDay: string,
  families: readonly string[],
  limit: number,
): Promise<UnreportedDay[]> {
  if (families.length === 0) return [];
  const { rows } = await sql<{
    user_id: string;
    customer_id: string;
    day: string | Date;
    family: string;
    units: string | number;
    reported: string | number;
  }>`
    select u.user_id, c.stripe_customer_id as customer_id, u.day, u.family, u.units,
           coalesce(r.units, 0) as reported
    from usage_daily u
    join billing_customers c on c.user_id = u.user_id
    left join billing_usage_reports r on r.user_id = u.user_id and r.day = u.day and r.family = u.family
    where u.day >= cast(${fromDay} as date) and u.day < cast(${beforeDay} as date)
      and u.family = any(cast(${[...families]} as text[]))
      and u.units > coalesce(r.units, 0)
    order by u.day, u.user_id, u.family
    limit ${limit}`.execute(db);
  return rows.map((r) => ({
    user_id: r.user_id,
    customer_id: r.customer_id,
    day: typeof r.day === "string" ? r.day.slice(0, 10) : r.day.toISOString().slice(0, 10),
    family: r.family,
    units: Number(r.units),
    reported: Number(r.reported),
  }));
}

/** Records that `units` of the day are now reported (never lowers what is on record). */
export async function markReported(db: Db, d: Pick<UnreportedDay, "user_id" | "day" | "family" | "units">) {
  await db
    .insertInto("billing_usage_reports")
    .values({ user_id: d.user_id, day: d.day, family: d.family, units: d.units })
    .onConflict((oc) =>
      oc.columns(["user_id", "day", "family"]).doUpdateSet({
        units: sql`greatest(billing_usage_reports.units, excluded.units)`,
        reported_at: sql`now()`,
      }),
    )
    .execute();
}
