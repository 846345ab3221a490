import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../../../http/context.js";
import { authSecurity } from "../../../http/security.js";
import type { AccountsContext } from "../context.js";

/** What every account route that needs credentials shares: its tag, the form's security and the auth check. */
export function securedRoute(ctx: AccountsContext, auth: MiddlewareHandler<AppEnv>) {
  return { tags: ["account"], security: authSecurity(ctx.form), middleware: auth };
}

export type SecuredRoute = ReturnType<typeof securedRoute>;
