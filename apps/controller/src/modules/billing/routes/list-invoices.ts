import { requirePrincipal } from "../../../http/auth.js";
import { registerPagedList, type SecuredRoute } from "../../../http/route-kit.js";
import type { Router } from "../../../http/router.js";
import { INVOICES_PAGE, invoiceSchema } from "../schemas.js";
import type { BillingService } from "../service.js";
import { toInvoiceView } from "../views.js";

/** `GET /v1/billing/invoices`: `?page&limit` (A) or `?page&per_page` (B). */
export function registerListInvoices(app: Router, billing: BillingService, common: SecuredRoute): void {
  registerPagedList(app, {
    common,
    path: "/v1/billing/invoices",
    summary: "The account's invoices, newest first",
    description:
      "From this server's records (Stripe's invoice webhooks keep them), not a Stripe call per request. A page " +
      "beyond the last answers with no items and the same total.",
    answer: "A page of invoices",
    item: invoiceSchema,
    pageSize: INVOICES_PAGE,
    list: (c, { page, limit }) => billing.invoices(requirePrincipal(c).userId, page, limit),
    view: toInvoiceView,
  });
}
