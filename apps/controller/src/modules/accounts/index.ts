import type { AppDeps } from "../../app.js";
import { requireAuth } from "../../http/auth.js";
import type { Router } from "../../http/router.js";
import { accountsContext } from "./context.js";
import { registerAuthRoutes } from "./routes-auth.js";
import { registerKeyRoutes } from "./routes-keys.js";
import { registerProfileRoutes } from "./routes-profile.js";

export {
  type AccountsContext,
  accountsContext,
  LOGIN_FAILURES_PER_EMAIL,
  LOGIN_FAILURES_PER_IP,
  LOGIN_WINDOW_MS,
} from "./context.js";
export { secretPrefix } from "./credential-formats.js";
export { resolveJwtSecret } from "./jwt-secret.js";
export { BCRYPT_COST, createKey, MAX_KEYS_PER_ACCOUNT, register } from "./service.js";

/** Account routes: register/login/logout/verify-email, profile, API keys (and Form A access tokens). */
export function registerAccounts(app: Router, deps: AppDeps): void {
  const ctx = accountsContext(deps);
  const auth = requireAuth(deps);
  registerAuthRoutes(app, ctx, auth);
  registerProfileRoutes(app, ctx, auth);
  registerKeyRoutes(app, ctx, auth);
}
