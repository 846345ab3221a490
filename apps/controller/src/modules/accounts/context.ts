import { randomBytes } from "node:crypto";
import type { Kysely } from "kysely";
import type { Logger } from "pino";
import type { Database } from "../../db/schema.js";
import type { AppDeps } from "../../deps.js";
import { dbRateLimitStore, RateLimiter } from "../../http/rate-limit/index.js";
import type { ApiForm } from "../../http/security.js";
import type { PlanLimits, PlanRow } from "../../lib/plans.js";
import type { DeliveryService } from "../delivery/index.js";
import { type CredentialVerifier, createCredentialVerifier } from "./credentials.js";
import { createPasswordHasher, type PasswordHasher, type PasswordHasherOptions } from "./password-hasher.js";
import { tokenKey } from "./tokens.js";

/** Failed logins allowed per email address, and per client IP (IPv6: per /64), in 15 minutes. */
export const LOGIN_FAILURES_PER_EMAIL = 5;
export const LOGIN_FAILURES_PER_IP = 20;
export const LOGIN_WINDOW_MS = 15 * 60_000;
/** Registrations are counted per clock hour (`VANTAGE_REGISTER_LIMIT_IP`, `VANTAGE_REGISTER_LIMIT_EMAIL`). */
export const REGISTER_WINDOW_MS = 3600_000;
/** Password reset requests per client IP (IPv6: per /64) and per address, per clock hour. */
export const PASSWORD_RESETS_PER_IP = 10;
export const PASSWORD_RESETS_PER_ADDRESS = 3;

/** What a caller of `createAccounts` may set beyond the configuration (tests, tools). */
export interface AccountsOptions {
  /** The password pool's size and queue (see `createPasswordHasher`). */
  passwords?: PasswordHasherOptions;
}

/** What the accounts service and the authenticator share; the composition root creates one per process. */
export interface AccountsContext {
  db: Kysely<Database>;
  log: Logger;
  form: ApiForm;
  jwtKey: Uint8Array;
  credentials: CredentialVerifier;
  loginFailuresPerEmail: RateLimiter;
  loginFailuresPerIp: RateLimiter;
  /** Registrations per client IP (IPv6: per /64) and per address; undefined when turned off (0). */
  registrationsPerIp: RateLimiter | undefined;
  registrationsPerAddress: RateLimiter | undefined;
  /** bcrypt in worker threads: every hash and compare goes through it, never the event loop. */
  passwords: PasswordHasher;
  /** Where verification mail is queued. */
  delivery: DeliveryService;
  /** The plan table (API keys per account). */
  plans: Record<PlanRow, PlanLimits>;
  /** Password reset requests per client IP and per address (counted whether or not the account exists). */
  resetsPerIp: RateLimiter;
  resetsPerAddress: RateLimiter;
  /**
   * The dashboard's address, without a trailing slash, for links in mail: `VANTAGE_PUBLIC_URL`, else
   * `http://localhost:<PORT>`. Never the request's Host header (a forged one would send reset links elsewhere).
   */
  publicUrl: string;
}

/**
 * The accounts context of one application. `createAccounts` calls this once and hands the context's
 * credential verifier out as the process's one `Authenticator`, so there is one credential cache by
 * construction and a revocation evicts it for every route.
 */
export function createAccountsContext(
  deps: AppDeps,
  delivery: DeliveryService,
  options: AccountsOptions = {},
): AccountsContext {
  let secret = deps.config.VANTAGE_JWT_SECRET;
  if (!secret) {
    // The runtime always resolves a secret (env or data directory); only a bare createApp gets here.
    secret = randomBytes(32).toString("base64url");
    deps.log.warn(
      "VANTAGE_JWT_SECRET unset: using a random per-process secret (tokens die with the process)",
    );
  }
  const jwtKey = tokenKey(secret);
  const db = deps.db.kysely;
  const store = dbRateLimitStore(db);
  const perHour = (name: string, limit: number) =>
    limit > 0 ? new RateLimiter(store, { name, limit, windowMs: REGISTER_WINDOW_MS }) : undefined;
  return {
    db,
    log: deps.log,
    form: deps.config.VANTAGE_API_FORM,
    jwtKey,
    credentials: createCredentialVerifier({ db, log: deps.log, form: deps.config.VANTAGE_API_FORM, jwtKey }),
    loginFailuresPerEmail: new RateLimiter(store, {
      name: "login:email",
      limit: LOGIN_FAILURES_PER_EMAIL,
      windowMs: LOGIN_WINDOW_MS,
    }),
    loginFailuresPerIp: new RateLimiter(store, {
      name: "login:ip",
      limit: LOGIN_FAILURES_PER_IP,
      windowMs: LOGIN_WINDOW_MS,
    }),
    registrationsPerIp: perHour("register:ip", deps.config.VANTAGE_REGISTER_LIMIT_IP),
    registrationsPerAddress: perHour("register:email", deps.config.VANTAGE_REGISTER_LIMIT_EMAIL),
    // The cost from deps (the test apps' lowered one) unless the options name one; else the pool's default.
    passwords: createPasswordHasher({
      ...(deps.bcryptCost !== undefined ? { cost: deps.bcryptCost } : {}),
      ...options.passwords,
    }),
    delivery,
    plans: deps.config.VANTAGE_PLAN_LIMITS,
    resetsPerIp: new RateLimiter(store, {
      name: "reset:ip",
      limit: PASSWORD_RESETS_PER_IP,
      windowMs: REGISTER_WINDOW_MS,
    }),
    resetsPerAddress: new RateLimiter(store, {
      name: "reset:email",
      limit: PASSWORD_RESETS_PER_ADDRESS,
      windowMs: REGISTER_WINDOW_MS,
    }),
    publicUrl: (deps.config.VANTAGE_PUBLIC_URL ?? `http://localhost:${deps.config.PORT}`).replace(/\/+$/, ""),
  };
}
