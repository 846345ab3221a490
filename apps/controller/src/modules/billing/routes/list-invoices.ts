import { createRoute } from "@hono/zod-openapi";
import { requirePrincipal } from "../../../http/auth.js";
import { envelope, errorResponses, jsonContent, ok } from "../../../http/envelope.js";
import type { Router } from "../../../http/router.js";
import type { ApiForm } from "../../../http/security.js";
import { invoiceListA, invoiceListB, invoiceListQueryA, invoiceListQueryB } from "../schemas.js";
import type { BillingService } from "../service.js";
import { type SecuredRoute, toInvoiceView } from "./views.js";

const summary = "The account's invoices, newest first";
const description =
  "From this server's records (Stripe's invoice webhooks keep them), not a Stripe call per request. A page " +
  "beyond the last answers with no items and the same total.";

/** `GET /v1/billing/invoices`: `?page&limit` (A) or `?page&per_page` (B). */
export function registerListInvoices(
  app: Router,
  billing: BillingService,
  common: SecuredRoute,
  form: ApiForm,
) {
  const responses = (schema: typeof invoiceListA | typeof invoiceListB) => ({
    200: { description: "A page of invoices", ...jsonContent(envelope(schema)) },
    ...errorResponses(400, 401, 403),
  });
  const path = "/v1/billing/invoices";
  if (form === "a") {
    const route = createRoute({
      ...common,
      method: "get",
      path,
      summary,
      description,
      request: { query: invoiceListQueryA },
      responses: responses(invoiceListA),
    });
    app.openapi(route, async (c) => {
      const { page, limit } = c.req.valid("query");
      const { items, total } = await billing.invoices(requirePrincipal(c).userId, page, limit);
      return ok(c, { items: items.map(toInvoiceView), total, page, limit }, 200);
    });
  } else {
    const route = createRoute({
      ...common,
      method: "get",
      path,
      summary,
      description,
      request: { query: invoiceListQueryB },
      responses: responses(invoiceListB),
    });
    app.openapi(route, async (c) => {
      const { page, per_page } = c.req.valid("query");
      const { items, total } = await billing.invoices(requirePrincipal(c).userId, page, per_page);
      return ok(c, { items: items.map(toInvoiceView), total, page, per_page }, 200);
    });
  }
}
