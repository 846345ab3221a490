import { createRoute } from "@hono/zod-openapi";
import { requirePrincipal } from "../../../http/auth.js";
import { envelope, errorResponses, jsonBody, jsonContent, ok } from "../../../http/envelope.js";
import type { SecuredRoute } from "../../../http/route-kit.js";
import type { Router } from "../../../http/router.js";
import { checkoutSchema, subscribeBody } from "../schemas.js";
import type { BillingService } from "../service.js";

/** `POST /v1/billing/subscribe`: the same contract in both forms. */
export function registerSubscribe(app: Router, billing: BillingService, common: SecuredRoute): void {
  const route = createRoute({
    ...common,
    method: "post",
    path: "/v1/billing/subscribe",
    summary: "Start a subscription: a Stripe Checkout page for the plan",
    description:
      "Creates the account's Stripe customer on first use and a Checkout session in subscription mode. The " +
      "plan applies once Stripe confirms the payment (webhook), not when this answers. An account with a " +
      "live subscription (active, trialing, past_due) → 409 `conflict`: change plans in the customer portal " +
      "(`POST /v1/billing/portal`). Without Stripe settings → 503 `billing_not_configured`.",
    request: jsonBody(subscribeBody),
    responses: {
      200: { description: "Where to pay", ...jsonContent(envelope(checkoutSchema)) },
      ...errorResponses(400, 401, 403, 409, 502, 503, 504),
    },
  });
  app.openapi(route, async (c) => {
    const out = await billing.subscribe(requirePrincipal(c).userId, c.req.valid("json").plan);
    return ok(c, { checkout_url: out.checkout_url, expires_at: out.expires_at?.toISOString() ?? null }, 200);
  });
}
