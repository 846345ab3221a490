import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../../../http/context.js";
import { type ApiForm, authSecurity } from "../../../http/security.js";
import type { InvoiceView, SubscriptionView } from "../service.js";

/** What every billing route but the webhook shares: its tag, the form's security and the auth check. */
export function securedRoute(form: ApiForm, auth: MiddlewareHandler<AppEnv>) {
  return { tags: ["billing"], security: authSecurity(form), middleware: auth };
}

export type SecuredRoute = ReturnType<typeof securedRoute>;

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export const toSubscriptionView = (s: SubscriptionView) => ({
  plan: s.plan,
  status: s.status,
  current_period_end: iso(s.current_period_end),
  cancel_at_period_end: s.cancel_at_period_end,
  grace_until: iso(s.grace_until),
});

export const toInvoiceView = (i: InvoiceView) => ({ ...i, created_at: i.created_at.toISOString() });
