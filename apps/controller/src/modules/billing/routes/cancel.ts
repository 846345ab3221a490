import { createRoute } from "@hono/zod-openapi";
import { requirePrincipal } from "../../../http/auth.js";
import { envelope, errorResponses, jsonContent, ok } from "../../../http/envelope.js";
import type { SecuredRoute } from "../../../http/route-kit.js";
import type { Router } from "../../../http/router.js";
import { portalSchema, subscriptionSchema } from "../schemas.js";
import type { BillingService } from "../service.js";
import { toSubscriptionView } from "../views.js";

/** `POST /v1/billing/cancel` and `POST /v1/billing/portal` (not in the spec): the same in both forms. */
export function registerCancelAndPortal(app: Router, billing: BillingService, common: SecuredRoute): void {
  const cancel = createRoute({
    ...common,
    method: "post",
    path: "/v1/billing/cancel",
    summary: "Cancel the subscription at the end of the period",
    description:
      "The plan stays until `current_period_end`, then the account is `free` (Stripe ends the subscription " +
      "and says so by webhook). Calling it again changes nothing. No live subscription → 409 `conflict`; " +
      "undo it in the customer portal.",
    responses: {
      200: {
        description: "The subscription, `cancel_at_period_end: true`",
        ...jsonContent(envelope(subscriptionSchema)),
      },
      ...errorResponses(401, 403, 409, 502, 503, 504),
    },
  });
  app.openapi(cancel, async (c) => {
    return ok(c, toSubscriptionView(await billing.cancel(requirePrincipal(c).userId), true), 200);
  });

  const portal = createRoute({
    ...common,
    method: "post",
    path: "/v1/billing/portal",
    summary: "A Stripe customer portal page",
    description:
      "Change the plan or the payment method, see and pay invoices, undo a cancel. Before the first " +
      "checkout → 409 `conflict`.",
    responses: {
      200: { description: "Where to send the user", ...jsonContent(envelope(portalSchema)) },
      ...errorResponses(401, 403, 409, 502, 503, 504),
    },
  });
  app.openapi(portal, async (c) => {
    return ok(c, await billing.portal(requirePrincipal(c).userId), 200);
  });
}
