import { createRequire } from "node:module";
import type Stripe from "stripe";
import type { Config, MeteredFamily } from "../../config.js";
import { ApiError } from "../../http/errors.js";
import type { PaidPlan } from "./plan-state.js";

/**
 * The Stripe SDK, loaded on first use: only a controller with STRIPE_SECRET_KEY uses it, and loading its
 * CommonJS files costs about 0.28 s of CPU, which every other start (embedded, tests, agents' operators)
 * would pay for nothing.
 */
let sdk: typeof Stripe | undefined;
export function stripeSdk(): typeof Stripe {
  sdk ??= createRequire(import.meta.url)("stripe") as typeof Stripe;
  return sdk;
}

/** Stripe answered that the object is not there (a subscription it no longer knows). */
export function stripeMissing(err: unknown): boolean {
  return err instanceof stripeSdk().errors.StripeInvalidRequestError && err.code === "resource_missing";
}

/** What billing needs from the configuration, once checked; `missing` names what is not set. */
export interface BillingSettings {
  /** Undefined when billing is off (the embedded default): the write routes answer 503. */
  stripe: Stripe | undefined;
  webhookSecret: string | undefined;
  prices: Partial<Record<PaidPlan, string>>;
  meteredPrice: string | undefined;
  meterEvents: Partial<Record<MeteredFamily, string>>;
  publicUrl: string;
  graceMs: number;
  reportEveryMs: number;
  missing: string[];
}

/**
 * The Stripe SDK pointed at `STRIPE_API_BASE` (Stripe's own by default; a loopback server in tests, an
 * egress proxy for some operators), with a 10 s deadline and the SDK's own retries (2, with idempotency
 * keys on every POST, so a retry never charges twice).
 */
export function billingSettings(config: Config): BillingSettings {
  const missing = (
    [
      ["STRIPE_SECRET_KEY", config.STRIPE_SECRET_KEY],
      ["STRIPE_WEBHOOK_SECRET", config.STRIPE_WEBHOOK_SECRET],
      ["STRIPE_PRICE_PRO", config.STRIPE_PRICE_PRO],
      ["STRIPE_PRICE_BUSINESS", config.STRIPE_PRICE_BUSINESS],
    ] as const
  )
    .filter(([, v]) => !v)
    .map(([name]) => name);
  let stripe: Stripe | undefined;
  if (config.STRIPE_SECRET_KEY) {
    const base = new URL(config.STRIPE_API_BASE);
    const StripeSdk = stripeSdk();
    stripe = new StripeSdk(config.STRIPE_SECRET_KEY, {
      host: base.hostname.replace(/^\[(.*)\]$/, "$1"),
      port: base.port || (base.protocol === "http:" ? 80 : 443),
      protocol: base.protocol === "http:" ? "http" : "https",
      timeout: 10_000,
      maxNetworkRetries: 2,
      appInfo: { name: "Vantage" },
    });
  }
  const prices: Partial<Record<PaidPlan, string>> = {};
  if (config.STRIPE_PRICE_PRO) prices.pro = config.STRIPE_PRICE_PRO;
  if (config.STRIPE_PRICE_BUSINESS) prices.business = config.STRIPE_PRICE_BUSINESS;
  return {
    stripe,
    webhookSecret: config.STRIPE_WEBHOOK_SECRET,
    prices,
    meteredPrice: config.STRIPE_PRICE_METERED,
    meterEvents: config.STRIPE_METER_EVENTS,
    publicUrl: (config.VANTAGE_PUBLIC_URL ?? `http://localhost:${config.PORT}`).replace(/\/+$/, ""),
    graceMs: config.VANTAGE_BILLING_GRACE_DAYS * 86_400_000,
    reportEveryMs: config.VANTAGE_BILLING_REPORT_MS,
    missing,
  };
}

/** 503 `billing_not_configured`, naming what the operator has to set. */
export function notConfigured(missing: string[]): ApiError {
  return new ApiError(
    "billing_not_configured",
    `billing is not configured on this server: the operator sets ${missing.join(", ")} (see docs/billing.md)`,
    { missing },
  );
}

/**
 * A Stripe SDK failure as the caller sees it: 502 `upstream_error` (Stripe refused: the server's Stripe
 * settings are wrong, which the log says in full) or 504 `upstream_timeout` (no answer in time). The
 * caller's own mistakes never reach Stripe, so none of this is a 4xx.
 */
export function stripeFailure(err: unknown): ApiError {
  const { errors } = stripeSdk();
  if (err instanceof errors.StripeConnectionError) {
    return new ApiError("upstream_timeout", "the payment provider did not answer; try again in a minute");
  }
  if (err instanceof errors.StripeError) {
    return new ApiError(
      "upstream_error",
      `the payment provider refused the request (${err.type}${err.code ? `: ${err.code}` : ""})`,
    );
  }
  return new ApiError("upstream_error", "the payment provider could not be reached");
}
