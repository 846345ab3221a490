import type { AppDeps, Module, Worker } from "../../deps.js";
import { requireAuth } from "../../http/auth.js";
import type { Authenticator } from "../../http/authenticator.js";
import { securedRoute } from "../../http/route-kit.js";
import type { Router } from "../../http/router.js";
import type { PlanName } from "../../lib/plans.js";
import type { DeliveryService } from "../delivery/index.js";
import { createAccountsWatcher } from "./account-changes.js";
import type { DeletionParticipant } from "./account-deletion.js";
import { type AccountsOptions, createAccountsContext } from "./context.js";
import { type CreatedKey, createKey, type NewKeyInput } from "./keys.js";
import * as repo from "./repo.js";
import { registerAuthRoutes } from "./routes/auth.js";
import { registerCreateKey } from "./routes/create-key.js";
import { registerDeleteAccount } from "./routes/delete-account.js";
import { registerGetProfile } from "./routes/get-profile.js";
import { registerListKeys } from "./routes/list-keys.js";
import { registerMcpTokenRoutes } from "./routes/mcp-tokens.js";
import { registerRecoveryRoutes } from "./routes/recovery.js";
import { registerRevokeKey } from "./routes/revoke-key.js";
import { registerTokenRoutes } from "./routes/tokens.js";
import { registerUpdateProfile } from "./routes/update-profile.js";
import { setPlan } from "./service.js";

export { ACCOUNTS_CHANNEL, announceAccountChange } from "./account-changes.js";
export type { DeletionParticipant } from "./account-deletion.js";
export {
  type AccountsContext,
  type AccountsOptions,
  LOGIN_FAILURES_PER_EMAIL,
  LOGIN_FAILURES_PER_IP,
  LOGIN_WINDOW_MS,
} from "./context.js";
export { secretPrefix } from "./credential-formats.js";
export { resolveJwtSecret } from "./jwt-secret.js";
export { type CreatedKey, MAX_KEYS_PER_ACCOUNT, type NewKeyInput } from "./keys.js";
export { BCRYPT_COST } from "./password-hasher.js";

/** What other modules, MCP and the dashboard ask of accounts. */
export interface AccountsService {
  /** The process's one authenticator: every route's auth middleware (and MCP) checks credentials with it. */
  readonly authenticator: Authenticator;
  /** The account's plan (`free` until billing changes it); undefined for an unknown account. */
  planOf(userId: string): Promise<string | undefined>;
  /** Whether the account has verified its email address (false for an unknown account). */
  emailVerified(userId: string): Promise<boolean>;
  /** Issues an API key or personal access token for an account (the secret is in the answer only). */
  createKey(userId: string, input: NewKeyInput): Promise<CreatedKey>;
  /**
   * Moves the account to `plan`; the plan it had, or undefined for an unknown account. The new limits
   * apply at once on every controller running the `watcher` (within 10 s on one whose listen connection
   * is down).
   */
  setPlan(userId: string, plan: PlanName): Promise<{ before: string } | undefined>;
}

export interface AccountsModule extends Module<AccountsService> {
  /**
   * Stops the password pool (bcrypt's worker threads), letting running checks finish; a register or login
   * after it answers 503. Call on shutdown after the api role has stopped. Idle threads end by themselves
   * and never hold the process open, so an application that is simply dropped (tests) leaks nothing.
   */
  close(): Promise<void>;
  /**
   * Hears account changes from every controller (plan set, key or session revoked: PostgreSQL NOTIFY on
   * `vantage_accounts`) and drops the account's cached credentials at once. The runtime runs it with the
   * api role, from before the port opens until after it closes.
   */
  readonly watcher: Worker;
  /**
   * Joins a module to account deletion (`DELETE /v1/account`): its `prepare` before anything is deleted,
   * its `erase` in the deletion's transaction. The composition root calls it once per module, before serving.
   */
  onDelete(participant: DeletionParticipant): void;
}

/** Accounts: register/login/logout/verify-email, profile, API keys (and Form A access tokens). */
export function createAccounts(
  deps: AppDeps,
  services: { delivery: DeliveryService },
  options: AccountsOptions = {},
): AccountsModule {
  const ctx = createAccountsContext(deps, services.delivery, options);
  const watcher = createAccountsWatcher(deps.db, ctx.credentials);
  const participants: DeletionParticipant[] = [];
  return {
    onDelete: (participant) => {
      participants.push(participant);
    },
    close: () => ctx.passwords.close(),
    watcher,
    // Account changes made on any controller (plan, revoked keys and sessions) evict this one's credential
    // cache: listening before the API port opens, so no request is served from a stale entry.
    workers: [
      { role: "api", name: "credential-watcher", start: () => watcher.start(), stop: () => watcher.stop() },
    ],
    service: {
      authenticator: ctx.credentials,
      async planOf(userId) {
        return (await repo.findUserById(ctx.db, userId))?.plan;
      },
      async emailVerified(userId) {
        return (await repo.findUserById(ctx.db, userId))?.email_verified === true;
      },
      createKey: (userId, input) => createKey(ctx, userId, input),
      setPlan: (userId, plan) => setPlan(ctx, userId, plan),
    },
    routes(app: Router) {
      const auth = requireAuth(ctx.credentials);
      registerAuthRoutes(app, ctx, auth);
      const secured = securedRoute("account", ctx.form, auth);
      registerRecoveryRoutes(app, ctx, secured);
      registerGetProfile(app, ctx, secured);
      registerUpdateProfile(app, ctx, secured);
      registerDeleteAccount(app, ctx, secured, participants);
      registerCreateKey(app, ctx, secured);
      registerListKeys(app, ctx, secured);
      registerRevokeKey(app, ctx, secured, "api_key");
      if (ctx.form === "a") {
        registerTokenRoutes(app, ctx, secured);
        registerMcpTokenRoutes(app, ctx, secured);
      }
    },
  };
}
