import { z } from "@hono/zod-openapi";
import { paidPlans } from "./plan-state.js";

const time = (description: string) => z.string().openapi({ description, format: "date-time" });

export const subscribeBody = z
  .strictObject({
    plan: z.enum(paidPlans).openapi({ description: "The plan to buy: `pro` or `business`", example: "pro" }),
  })
  .openapi("BillingSubscribe", { description: "Any other field → 400 `unknown_field`." });

export const checkoutSchema = z
  .object({
    checkout_url: z.string().openapi({
      description: "Stripe Checkout: send the user here to pay",
      example: "https://checkout.stripe.com/c/pay/cs_test_a1",
    }),
    expires_at: time("When the checkout page stops working (Stripe: 24 h)").nullable(),
  })
  .openapi("BillingCheckout");

export const portalSchema = z
  .object({
    portal_url: z
      .string()
      .openapi({ description: "Stripe's customer portal: payment method, plan, invoices" }),
  })
  .openapi("BillingPortal");

export const subscriptionSchema = z
  .object({
    plan: z.string().openapi({
      description: "The plan whose limits apply now: free, pro or business (also when an operator set it)",
      example: "pro",
    }),
    status: z.string().openapi({
      description:
        "The subscription's status at Stripe: active, trialing, past_due, canceled, unpaid, incomplete, " +
        "incomplete_expired, paused; `none` when the account never subscribed",
      example: "active",
    }),
    current_period_end: time("When the period paid for ends (renewal, or the end after a cancel)").nullable(),
    cancel_at_period_end: z.boolean().openapi({ description: "Cancelled: ends at `current_period_end`" }),
    grace_until: time(
      "past_due only: when the plan lapses to free unless the payment goes through",
    ).nullable(),
    billing_enabled: z.boolean().openapi({
      description:
        "Vantage extension, both forms: whether this deployment sells plans (Stripe is configured). When " +
        "false, subscribing, cancelling and the portal answer 503 `billing_not_configured`",
    }),
  })
  .openapi("Subscription");

export const invoiceSchema = z
  .object({
    id: z.string().openapi({ example: "in_1QxYz2AbCdEf" }),
    amount: z.number().openapi({ description: "In the currency's major unit (19.99)", example: 19 }),
    amount_minor: z
      .number()
      .int()
      .openapi({ description: "In its minor unit, as Stripe counts (1999)", example: 1900 }),
    currency: z.string().openapi({ description: "ISO 4217, upper case", example: "USD" }),
    status: z.string().openapi({ description: "draft, open, paid, uncollectible or void", example: "paid" }),
    created_at: time("When Stripe created it"),
    hosted_invoice_url: z
      .string()
      .nullable()
      .openapi({ description: "Stripe's page of the invoice (PDF, receipt)" }),
  })
  .openapi("Invoice");

/** Invoices per page when the query names none. */
export const INVOICES_PAGE = 20;

export const webhookAckSchema = z
  .object({
    received: z.literal(true),
    duplicate: z.boolean().openapi({ description: "The event was handled before: nothing changed" }),
  })
  .openapi("BillingWebhookAck");
