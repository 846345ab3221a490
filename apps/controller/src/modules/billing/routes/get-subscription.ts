import { createRoute } from "@hono/zod-openapi";
import { requirePrincipal } from "../../../http/auth.js";
import { envelope, errorResponses, jsonContent, ok } from "../../../http/envelope.js";
import type { SecuredRoute } from "../../../http/route-kit.js";
import type { Router } from "../../../http/router.js";
import { subscriptionSchema } from "../schemas.js";
import type { BillingService } from "../service.js";
import { toSubscriptionView } from "../views.js";

/** `GET /v1/billing/subscription`: the same contract in both forms. */
export function registerGetSubscription(
  app: Router,
  billing: BillingService,
  common: SecuredRoute,
  billingEnabled: boolean,
): void {
  const route = createRoute({
    ...common,
    method: "get",
    path: "/v1/billing/subscription",
    summary: "The account's plan and subscription",
    description:
      "Always 200: an account that never subscribed answers its plan (`free`, or what the operator set) with " +
      "status `none`. Read from this server's records, which Stripe's webhooks keep in step; works without " +
      "Stripe settings too (Form A reads the plan here). `billing_enabled` says whether plans can be bought.",
    responses: {
      200: { description: "The subscription", ...jsonContent(envelope(subscriptionSchema)) },
      ...errorResponses(401, 403),
    },
  });
  app.openapi(route, async (c) => {
    const view = toSubscriptionView(await billing.subscription(requirePrincipal(c).userId), billingEnabled);
    return ok(c, view, 200);
  });
}
