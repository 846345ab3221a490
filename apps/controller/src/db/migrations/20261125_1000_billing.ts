import { type Kysely, sql } from "kysely";

/**
 * Billing with Stripe, kept in step by its webhooks: each account's Stripe customer, its subscriptions
 * (the plan follows them), its invoices, the webhook events already handled (each once), and the daily
 * use already reported to Stripe's billing meters (each account, day and family once).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table billing_customers (
      user_id text primary key references users(id) on delete cascade,
      stripe_customer_id text not null unique,
      created_at timestamptz not null default now()
    )`.execute(db);
  await sql`
    create table billing_subscriptions (
      id text primary key,
      user_id text not null references users(id) on delete cascade,
      plan text,
      status text not null,
      current_period_end timestamptz,
      cancel_at_period_end boolean not null default false,
      past_due_since timestamptz,
      synced_at timestamptz not null,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    )`.execute(db);
  await sql`create index billing_subscriptions_user on billing_subscriptions (user_id, updated_at desc)`.execute(
    db,
  );
  await sql`
    create table billing_invoices (
      id text primary key,
      user_id text not null references users(id) on delete cascade,
      subscription_id text,
      amount_minor bigint not null,
      currency text not null,
      status text not null,
      hosted_invoice_url text,
      created_at timestamptz not null,
      updated_at timestamptz not null default now()
    )`.execute(db);
  await sql`create index billing_invoices_user on billing_invoices (user_id, created_at desc, id desc)`.execute(
    db,
  );
  await sql`
    create table billing_events (
      id text primary key,
      type text not null,
      received_at timestamptz not null default now()
    )`.execute(db);
  await sql`
    create table billing_usage_reports (
      user_id text not null references users(id) on delete cascade,
      day date not null,
      family text not null,
      units bigint not null,
      reported_at timestamptz not null default now(),
      primary key (user_id, day, family)
    )`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const t of [
    "billing_usage_reports",
    "billing_events",
    "billing_invoices",
    "billing_subscriptions",
    "billing_customers",
  ]) {
    await sql`drop table ${sql.table(t)}`.execute(db);
  }
}
