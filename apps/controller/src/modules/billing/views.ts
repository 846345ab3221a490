import type { InvoiceView, SubscriptionView } from "./service.js";

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export const toSubscriptionView = (s: SubscriptionView, billingEnabled: boolean) => ({
  plan: s.plan,
  status: s.status,
  current_period_end: iso(s.current_period_end),
  cancel_at_period_end: s.cancel_at_period_end,
  grace_until: iso(s.grace_until),
  billing_enabled: billingEnabled,
});

export const toInvoiceView = (i: InvoiceView) => ({ ...i, created_at: i.created_at.toISOString() });
