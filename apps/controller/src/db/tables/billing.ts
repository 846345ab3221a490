import type { ColumnType, Generated } from "kysely";

export interface BillingCustomersTable {
  user_id: string;
  stripe_customer_id: string;
  created_at: Generated<Date>;
}

/** One Stripe subscription (`sub_…`); `plan` is null when none of its prices is a plan's. */
export interface BillingSubscriptionsTable {
  id: string;
  user_id: string;
  plan: string | null;
  status: string;
  current_period_end: Date | null;
  cancel_at_period_end: boolean;
  /** When it was first seen `past_due` (the grace period runs from here); null otherwise. */
  past_due_since: Date | null;
  /** When the state written was read from Stripe: an older read never overwrites a newer one. */
  synced_at: Date;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
}

/** One Stripe invoice (`in_…`); amounts in the currency's minor unit (bigint: strings from postgres.js). */
export interface BillingInvoicesTable {
  id: string;
  user_id: string;
  subscription_id: string | null;
  amount_minor: ColumnType<string | number, number, number>;
  currency: string;
  status: string;
  hosted_invoice_url: string | null;
  created_at: Date;
  updated_at: Generated<Date>;
}

export interface BillingEventsTable {
  id: string;
  type: string;
  received_at: Generated<Date>;
}

/** What was reported to Stripe's billing meter per account, UTC day (`YYYY-MM-DD`) and family. */
export interface BillingUsageReportsTable {
  user_id: string;
  day: ColumnType<string, string, string>;
  family: string;
  units: ColumnType<string | number, number, number>;
  reported_at: Generated<Date>;
}

export interface BillingTables {
  billing_customers: BillingCustomersTable;
  billing_subscriptions: BillingSubscriptionsTable;
  billing_invoices: BillingInvoicesTable;
  billing_events: BillingEventsTable;
  billing_usage_reports: BillingUsageReportsTable;
}
