import { createRoute, z } from "@hono/zod-openapi";
import { requirePrincipal } from "../../../http/auth.js";
import { clientIpOf } from "../../../http/context.js";
import { envelope, errorResponses, jsonBody, ok } from "../../../http/envelope.js";
import { ApiError } from "../../../http/errors.js";
import type { SecuredRoute } from "../../../http/route-kit.js";
import type { Router } from "../../../http/router.js";
import type { AccountsContext } from "../context.js";
import { clearedRefreshCookie, REFRESH_COOKIE, readRefreshCookie, refreshCookie } from "../cookie.js";
import {
  changePassword,
  REFRESH_TTL_S,
  RESET_TOKEN_TTL_S,
  refreshSession,
  requestPasswordReset,
  resetPassword,
} from "../recovery.js";
import {
  passwordChangeBody,
  passwordResetConfirmBody,
  passwordResetRequestBody,
  tokenSchema,
} from "../schemas.js";
import { toToken } from "../views.js";

const done = { content: { "application/json": { schema: envelope(z.null()) } } };

/**
 * Accounts that recover (extensions, the same in both forms): the dashboard's cookie refresh, password
 * reset by mailed link, and password change.
 */
export function registerRecoveryRoutes(app: Router, ctx: AccountsContext, secured: SecuredRoute): void {
  const refresh = createRoute({
    method: "post",
    path: "/v1/auth/refresh",
    tags: ["account"],
    summary: "Renew the dashboard's access token with its refresh cookie (extension)",
    description:
      `Reads the \`${REFRESH_COOKIE}\` cookie set by a login or registration with \`refresh_cookie: true\`, ` +
      "and answers a new 900 s access token and the next refresh cookie: each credential works once (rotation), " +
      `and lives ${REFRESH_TTL_S / 86400} days from its last use. A missing, expired, revoked or already used ` +
      "credential → 401 and the cookie is removed; a used one presented again later revokes its whole " +
      "sign-in (it was copied). Sign-out, a password reset and a password change revoke it.",
    request: {
      cookies: z.object({
        [REFRESH_COOKIE]: z.string().optional().openapi({ description: "The refresh credential (HttpOnly)" }),
      }),
    },
    responses: {
      200: { description: "Renewed", content: { "application/json": { schema: envelope(tokenSchema) } } },
      ...errorResponses(401),
    },
  });
  app.openapi(refresh, async (c) => {
    const secret = readRefreshCookie(c);
    try {
      if (secret === undefined) throw new ApiError("unauthorized", "no refresh cookie: sign in again");
      const renewed = await refreshSession(ctx, secret);
      c.header("Set-Cookie", refreshCookie(c, renewed.refresh));
      return ok(c, toToken(renewed.token), 200);
    } catch (err) {
      if (err instanceof ApiError && err.code === "unauthorized") {
        throw new ApiError("unauthorized", err.message, undefined, { "Set-Cookie": clearedRefreshCookie(c) });
      }
      throw err;
    }
  });

  const requestReset = createRoute({
    method: "post",
    path: "/v1/auth/password-reset",
    tags: ["account"],
    summary: "Mail a password reset link (extension)",
    description:
      "When the address belongs to an account, a message with a link to the dashboard's reset page " +
      "(`<VANTAGE_PUBLIC_URL>/#/reset-password?token=…`) and the token is queued; the token works once, " +
      `within ${RESET_TOKEN_TTL_S / 60} minutes. The answer is the same 202 whether or not an account ` +
      "uses the address. Requests are limited to 10 per hour per client IP (IPv6: per /64) and 3 per hour " +
      "per address, for any address alike → 429 `rate_limited` with `Retry-After`.",
    request: jsonBody(passwordResetRequestBody),
    responses: {
      202: { description: "If an account uses this address, a reset link is on its way", ...done },
      ...errorResponses(400, 429),
    },
  });
  app.openapi(requestReset, async (c) => {
    await requestPasswordReset(ctx, { email: c.req.valid("json").email, clientIp: clientIpOf(c) });
    return ok(c, null, 202);
  });

  const confirmReset = createRoute({
    method: "post",
    path: "/v1/auth/password-reset/confirm",
    tags: ["account"],
    summary: "Set a new password with a mailed reset token (extension)",
    description:
      "Sets the password, spends the token (and any other reset token of the account), signs out every " +
      "session and refresh cookie of the account, and marks the address verified. A used, expired or " +
      "unknown token → 400 `validation_error` on `body.token`; a too short password → 400 on `body.password`.",
    request: jsonBody(passwordResetConfirmBody),
    responses: {
      200: { description: "Password set; sign in with it", ...done },
      ...errorResponses(400, 503),
    },
  });
  app.openapi(confirmReset, async (c) => {
    await resetPassword(ctx, c.req.valid("json"));
    return ok(c, null, 200);
  });

  const change = createRoute({
    ...secured,
    method: "post",
    path: "/v1/account/password",
    summary: "Change the password (extension)",
    description:
      "Only a login session may (an API key or access token → 403). The current password must match (else " +
      "400 on `body.current_password`; wrong ones count as failed logins, 429 beyond 5 in 15 minutes). Every " +
      "other session and refresh cookie of the account is signed out; this one stays.",
    request: jsonBody(passwordChangeBody),
    responses: {
      200: { description: "Password changed", ...done },
      ...errorResponses(400, 401, 403, 429, 503),
    },
  });
  app.openapi(change, async (c) => {
    await changePassword(ctx, requirePrincipal(c), { ...c.req.valid("json"), refresh: readRefreshCookie(c) });
    return ok(c, null, 200);
  });
}
