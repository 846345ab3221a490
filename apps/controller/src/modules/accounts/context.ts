import { randomBytes } from "node:crypto";
import type { Kysely } from "kysely";
import type { Logger } from "pino";
import type { Database } from "../../db/schema.js";
import type { AppDeps } from "../../deps.js";
import { dbRateLimitStore, RateLimiter } from "../../http/rate-limit/index.js";
import type { ApiForm } from "../../http/security.js";
import type { DeliveryService } from "../delivery/index.js";
import { type CredentialVerifier, createCredentialVerifier } from "./credentials.js";
import { tokenKey } from "./tokens.js";

/** Failed logins allowed per email address, and per client IP (IPv6: per /64), in 15 minutes. */
export const LOGIN_FAILURES_PER_EMAIL = 5;
export const LOGIN_FAILURES_PER_IP = 20;
export const LOGIN_WINDOW_MS = 15 * 60_000;

/** What the accounts service and the authenticator share; the composition root creates one per process. */
export interface AccountsContext {
  db: Kysely<Database>;
  log: Logger;
  form: ApiForm;
  jwtKey: Uint8Array;
  credentials: CredentialVerifier;
  loginFailuresPerEmail: RateLimiter;
  loginFailuresPerIp: RateLimiter;
  publicUrl: string | undefined;
  /** Where verification mail is queued. */
  delivery: DeliveryService;
}

/**
 * The accounts context of one application. `createAccounts` calls this once and hands the context's
 * credential verifier out as the process's one `Authenticator`, so there is one credential cache by
 * construction and a revocation evicts it for every route.
 */
export function createAccountsContext(deps: AppDeps, delivery: DeliveryService): AccountsContext {
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
    publicUrl: deps.config.VANTAGE_PUBLIC_URL,
    delivery,
  };
}
