import { z } from "zod";
import { parseMeterEvents, parseSecretKeys } from "./config-values.js";
import { secret } from "./config-variable.js";
import { parsePlanLimits } from "./lib/plans.js";
import { parseSecretKey } from "./lib/secret-box.js";

/** Tokens, the key that seals secrets at rest, and registration limits. */
export const accounts = {
  VANTAGE_JWT_SECRET: secret(z.string().min(32, "must be at least 32 characters").optional()),
  VANTAGE_SECRET_KEY: secret(
    z
      .string()
      .transform((s, ctx) => {
        try {
          return parseSecretKey(s);
        } catch (error) {
          ctx.addIssue({ code: "custom", message: (error as Error).message });
          return z.NEVER;
        }
      })
      .optional(),
  ),
  VANTAGE_SECRET_KEYS_PREVIOUS: secret(
    z
      .string()
      .default("")
      .transform((s, ctx) => {
        const keys = parseSecretKeys(s);
        if (typeof keys === "string") {
          ctx.addIssue({ code: "custom", message: keys });
          return z.NEVER;
        }
        return keys;
      }),
  ),
  VANTAGE_REGISTER_LIMIT_IP: z.coerce.number().int().min(0).max(1_000_000_000).default(10),
  VANTAGE_REGISTER_LIMIT_EMAIL: z.coerce.number().int().min(0).max(1_000_000_000).default(3),
};

/** Outgoing mail (verification, password resets, email alert channels). */
export const mail = {
  SMTP_URL: secret(
    z
      .string()
      .regex(
        /^smtps?:\/\/\S+$/,
        "must be an smtp:// or smtps:// URL without spaces (percent-encode them in a password: %20)",
      )
      .optional(),
  ),
  SMTP_FROM: z.string().min(3).default("Vantage <no-reply@vantage.invalid>"),
};

/** The plan table and the counters that enforce it across controllers. */
export const limits = {
  /** The whole plan table: the defaults (lib/plans.ts) with what this JSON changes; never unset. */
  VANTAGE_PLAN_LIMITS: z
    .string()
    .optional()
    .transform((s, ctx) => {
      const table = parsePlanLimits(s);
      if (typeof table === "string") {
        ctx.addIssue({ code: "custom", message: table });
        return z.NEVER;
      }
      return table;
    }),
  VANTAGE_LIMIT_SYNC_MS: z.coerce.number().int().min(50).max(60_000).default(1000),
  VANTAGE_USAGE_FLUSH_MS: z.coerce.number().int().min(100).max(60_000).default(2000),
  /** Refused requests (400, 413, 415) per client IP and minute before its bodies are refused unread; 0 = off. */
  VANTAGE_REFUSED_LIMIT_IP: z.coerce.number().int().min(0).max(1_000_000_000).default(60),
  /** Live result streams (SSE) open at once in this process, per client IP and per account. */
  VANTAGE_STREAMS_PER_IP: z.coerce.number().int().min(1).max(100_000).default(20),
  VANTAGE_STREAMS_PER_ACCOUNT: z.coerce.number().int().min(1).max(100_000).default(20),
};

const stripePrice = () =>
  z
    .string()
    .regex(/^price_\w+$/, "must be a Stripe price id (price_…)")
    .optional();

/** Stripe; every variable unset → billing is off. */
export const billing = {
  STRIPE_SECRET_KEY: secret(
    z
      .string()
      .regex(/^(sk|rk)_[A-Za-z0-9_]+$/, "must be a Stripe secret or restricted key (sk_… or rk_…)")
      .optional(),
  ),
  STRIPE_WEBHOOK_SECRET: secret(
    z
      .string()
      .regex(/^whsec_\S+$/, "must be a webhook signing secret (whsec_…)")
      .optional(),
  ),
  STRIPE_PRICE_PRO: stripePrice(),
  STRIPE_PRICE_BUSINESS: stripePrice(),
  /** Metered price added to every checkout (usage reported through billing meters), when set. */
  STRIPE_PRICE_METERED: stripePrice(),
  STRIPE_METER_EVENTS: z
    .string()
    .optional()
    .transform((s, ctx) => {
      const events = parseMeterEvents(s ?? "");
      if (typeof events === "string") {
        ctx.addIssue({ code: "custom", message: events });
        return z.NEVER;
      }
      return events;
    }),
  STRIPE_API_BASE: z
    .string()
    .url()
    .regex(/^https?:\/\/[^/?#]+\/?$/, "must be a base URL without a path, e.g. https://api.stripe.com")
    .default("https://api.stripe.com"),
  VANTAGE_BILLING_GRACE_DAYS: z.coerce.number().int().min(0).max(60).default(7),
  VANTAGE_BILLING_REPORT_MS: z.coerce.number().int().min(1000).max(86_400_000).default(3_600_000),
};
