import { createRoute } from "@hono/zod-openapi";
import { envelope, errorResponses, jsonContent, ok } from "../../../http/envelope.js";
import type { Router } from "../../../http/router.js";
import { webhookAckSchema } from "../schemas.js";
import type { BillingService } from "../service.js";

/** `POST /v1/billing/webhook`: Stripe's events, public (the signature is the credential). */
export function registerWebhook(app: Router, billing: BillingService): void {
  const route = createRoute({
    tags: ["billing"],
    method: "post",
    path: "/v1/billing/webhook",
    summary: "Stripe webhook endpoint",
    description:
      "For Stripe only. The body must be signed (`Stripe-Signature`, the endpoint's `whsec_` secret) within " +
      "the last 5 minutes, else 400 `invalid_signature` and nothing is stored. Each event id is handled once; " +
      "a repeat answers `duplicate: true`. An event the server handles that lacks a field it reads (or has one of " +
      "the wrong type) → 400 `validation_error` naming it, and nothing is stored. A failure to reach Stripe meanwhile answers 502/504 so that Stripe " +
      "delivers the event again.",
    request: {
      body: {
        required: true,
        content: { "application/json": { schema: { type: "object", description: "A Stripe event" } } },
      },
    },
    responses: {
      200: { description: "Handled (or handled before)", ...jsonContent(envelope(webhookAckSchema)) },
      ...errorResponses(400, 502, 503, 504),
    },
  });
  app.openapi(route, async (c) => {
    // The signature covers the exact bytes: read the raw body, never a re-serialised parse of it.
    const raw = await c.req.text();
    return ok(c, await billing.webhook(raw, c.req.header("stripe-signature")), 200);
  });
}
