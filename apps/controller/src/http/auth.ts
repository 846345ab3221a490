import type { Context, MiddlewareHandler } from "hono";
import type { Authenticator } from "./authenticator.js";
import type { AppEnv, Principal, Scope } from "./context.js";
import { ApiError } from "./errors.js";

/** The scope a request needs: `read` for GET and HEAD, `write` for everything else. */
export function scopeForMethod(method: string): Scope {
  return method === "GET" || method === "HEAD" ? "read" : "write";
}

/**
 * Route middleware for `auth` endpoints: authenticates the active form's credentials (Form A:
 * `Authorization: Bearer` only; Form B: also `X-API-Key`), checks the scope the method needs (or
 * `opts.scope`) and sets `c.get("principal")`. 401 (with `WWW-Authenticate: Bearer`) on missing or bad
 * credentials, 403 `insufficient_scope` on a missing scope. Put it in `createRoute({ middleware })` next
 * to `security: authSecurity(form)`.
 */
export function requireAuth(
  credentials: Authenticator,
  opts: { scope?: Scope } = {},
): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const principal = await credentials.authenticate({
      authorization: c.req.header("authorization"),
      apiKey: c.req.header("x-api-key"),
    });
    const needed = opts.scope ?? scopeForMethod(c.req.method);
    if (!principal.scopes.includes(needed)) {
      throw new ApiError(
        "insufficient_scope",
        `this credential lacks the "${needed}" scope`,
        { required_scope: needed, granted_scopes: principal.scopes },
        { "WWW-Authenticate": `Bearer error="insufficient_scope", scope="${needed}"` },
      );
    }
    c.set("principal", principal);
    await next();
  };
}

/**
 * Route middleware for public endpoints that also take credentials (probes: an account gets its own
 * quota and owns its tasks): no credential headers → anonymous; credentials present → they must be valid
 * (401 otherwise) and `c.get("principal")` is set. No scope is needed: the credential only names the caller.
 * Form A does not take `X-API-Key` at all, so there it is ignored like any other header: the call is
 * anonymous unless `Authorization` is sent.
 */
export function optionalAuth(credentials: Authenticator): MiddlewareHandler<AppEnv> {
  const takesApiKeyHeader = credentials.acceptsApiKeyHeader;
  return async (c, next) => {
    const authorization = c.req.header("authorization");
    const apiKey = takesApiKeyHeader ? c.req.header("x-api-key") : undefined;
    if (authorization !== undefined || apiKey !== undefined) {
      c.set("principal", await credentials.authenticate({ authorization, apiKey }));
    }
    await next();
  };
}

/** The authenticated caller; 401 if the route forgot `requireAuth`. */
export function requirePrincipal(c: Context<AppEnv>): Principal {
  const p = c.get("principal");
  if (!p) throw new ApiError("unauthorized", "authentication required");
  return p;
}

/** Two middlewares as one, in order (auth, then a limit gate that needs its principal). */
export function chain(
  first: MiddlewareHandler<AppEnv>,
  second: MiddlewareHandler<AppEnv>,
): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const r = await first(c, () => second(c, next).then(() => undefined));
    return r ?? undefined;
  };
}
