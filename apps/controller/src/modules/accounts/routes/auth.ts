import { createRoute, z } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import { requirePrincipal } from "../../../http/auth.js";
import { type AppEnv, clientIpOf } from "../../../http/context.js";
import { envelope, errorResponses, jsonBody, ok } from "../../../http/envelope.js";
import type { Router } from "../../../http/router.js";
import { authSecurity } from "../../../http/security.js";
import type { AccountsContext } from "../context.js";
import { clearedRefreshCookie, readRefreshCookie, refreshCookie } from "../cookie.js";
import { endRefreshFamily, startRefreshFamily } from "../recovery.js";
import { credentialsBody, tokenSchema, verifyEmailBody, verifyEmailResult } from "../schemas.js";
import { login, logout, register, verifyEmail } from "../service.js";
import { toToken } from "../views.js";

/** Passwords are checked in a bounded pool of worker threads; a full pool answers at once rather than queue. */
const PASSWORD_POOL_NOTE =
  "When more password checks are waiting than the server takes on, the request gets 503 `unavailable` " +
  "with `Retry-After: 1`.";

/** The registration limits as the route documents them (from the configuration). */
function registrationLimits(ctx: AccountsContext): string {
  const perIp = ctx.registrationsPerIp?.rule.limit;
  const perAddress = ctx.registrationsPerAddress?.rule.limit;
  const parts = [
    perIp === undefined ? undefined : `${perIp} per hour per client IP (IPv6: per /64)`,
    perAddress === undefined
      ? undefined
      : `${perAddress} per hour per address (\`+tags\` count as one address; a taken address counts too)`,
  ].filter((p) => p !== undefined);
  const limits =
    parts.length === 0
      ? "Registrations are not limited on this server. "
      : `Registrations are limited to ${parts.join(" and ")}, counted before any work; beyond a limit → ` +
        "429 `rate_limited` with `Retry-After` and `RateLimit-*` headers. ";
  return limits + PASSWORD_POOL_NOTE;
}

/** Register, login, logout and email verification: the same in both forms. */
export function registerAuthRoutes(app: Router, ctx: AccountsContext, auth: MiddlewareHandler<AppEnv>): void {
  const registerRoute = createRoute({
    method: "post",
    path: "/v1/auth/register",
    tags: ["account"],
    summary: "Create an account and log in",
    description:
      "The email is trimmed and its domain lower-cased; it must be unused (case-insensitively). A verification " +
      "message is queued to the address (see `POST /v1/auth/verify-email`). " +
      registrationLimits(ctx),
    request: jsonBody(credentialsBody),
    responses: {
      201: {
        description: "Account created",
        content: { "application/json": { schema: envelope(tokenSchema) } },
      },
      ...errorResponses(400, 409, 429, 503),
    },
  });
  app.openapi(registerRoute, async (c) => {
    const body = c.req.valid("json");
    const token = await register(ctx, { ...body, clientIp: clientIpOf(c) });
    if (body.refresh_cookie)
      c.header("Set-Cookie", refreshCookie(c, await startRefreshFamily(ctx, token.userId)));
    return ok(c, toToken(token), 201);
  });

  const loginRoute = createRoute({
    method: "post",
    path: "/v1/auth/login",
    tags: ["account"],
    summary: "Log in: a JWT access token valid 15 minutes",
    description:
      "A wrong email and a wrong password give the same 401. After 5 failures for one email, or 20 from one " +
      "client IP, within 15 minutes, further attempts get 429 with `Retry-After` until the window ends. " +
      "API clients log in again when the token expires; the dashboard sends `refresh_cookie: true` and renews " +
      "its token with `POST /v1/auth/refresh` (extension). " +
      PASSWORD_POOL_NOTE,
    request: jsonBody(credentialsBody),
    responses: {
      200: { description: "Logged in", content: { "application/json": { schema: envelope(tokenSchema) } } },
      ...errorResponses(400, 401, 429, 503),
    },
  });
  app.openapi(loginRoute, async (c) => {
    const body = c.req.valid("json");
    const token = await login(ctx, { ...body, clientIp: clientIpOf(c) });
    if (body.refresh_cookie)
      c.header("Set-Cookie", refreshCookie(c, await startRefreshFamily(ctx, token.userId)));
    return ok(c, toToken(token), 200);
  });

  const logoutRoute = createRoute({
    method: "post",
    path: "/v1/auth/logout",
    tags: ["account"],
    summary: "Revoke the access token this request carries",
    description:
      "Only a login session can log out; API keys and access tokens are deleted instead. A `vantage_refresh` " +
      "cookie sent along (the dashboard) is revoked with its whole sign-in and removed.",
    security: authSecurity(ctx.form),
    middleware: auth,
    responses: {
      200: { description: "Logged out", content: { "application/json": { schema: envelope(z.null()) } } },
      ...errorResponses(401, 403),
    },
  });
  app.openapi(logoutRoute, async (c) => {
    const principal = requirePrincipal(c);
    await logout(ctx, principal);
    const refresh = readRefreshCookie(c);
    if (refresh !== undefined) {
      await endRefreshFamily(ctx, refresh, principal.userId);
      c.header("Set-Cookie", clearedRefreshCookie(c));
    }
    return ok(c, null, 200);
  });

  const verifyRoute = createRoute({
    method: "post",
    path: "/v1/auth/verify-email",
    tags: ["account"],
    summary: "Confirm the email address with the token from the verification message",
    description:
      "The verification message links to the dashboard's verify page (`<VANTAGE_PUBLIC_URL>/#/verify-email?token=…`, " +
      "the token in the fragment, so opening the link sends it to no server), which posts the token here. " +
      "A token works once: a used token, one for an address the account no longer has, an expired (48 h) " +
      "or a malformed one → 400 `validation_error` on `body.token`.",
    request: jsonBody(verifyEmailBody),
    responses: {
      200: {
        description: "Email verified",
        content: { "application/json": { schema: envelope(verifyEmailResult) } },
      },
      ...errorResponses(400),
    },
  });
  app.openapi(verifyRoute, async (c) => {
    const user = await verifyEmail(ctx, c.req.valid("json").token);
    return ok(c, { id: user.id, email: user.email, email_verified: user.email_verified }, 200);
  });
}
