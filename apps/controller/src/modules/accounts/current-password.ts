import type { Principal } from "../../http/context.js";
import { ApiError, fieldError } from "../../http/errors.js";
import { giveBack, rateLimitedError } from "../../http/rate-limit/index.js";
import type { AccountsContext } from "./context.js";
import * as repo from "./repo.js";
import { PASSWORD_MAX_BYTES } from "./validation.js";

/**
 * Acts that a stolen key must not be able to do (change the password, delete the account) need the person:
 * a login session, never an API key, personal access token or MCP token.
 */
export function requireLoginSession(principal: Principal, what: string): void {
  if (principal.kind !== "jwt") {
    throw new ApiError(
      "forbidden",
      `only a login session can ${what}; this request used an API key or access token: sign in ` +
        "(POST /v1/auth/login) and send its access token",
    );
  }
}

/**
 * Checks the account's current password for an act that needs it. Wrong ones count as failed logins for
 * the address (the login limiter: 429 beyond its limit, so a stolen session cannot guess the password);
 * a right one clears the count. Wrong → 400 `validation_error` on `path`. Answers the account's row.
 */
export async function checkCurrentPassword(
  ctx: AccountsContext,
  userId: string,
  password: string,
  path: string,
): Promise<repo.UserRow> {
  const user = await repo.findUserById(ctx.db, userId);
  if (!user?.password_hash) throw new ApiError("unauthorized", "authentication required");
  const key = user.email.toLowerCase();
  const counted = await ctx.loginFailuresPerEmail.consume(key);
  if (counted.exceeded) {
    await giveBack(ctx.loginFailuresPerEmail, key, counted);
    throw rateLimitedError([counted], "too many wrong passwords");
  }
  const tooLong = Buffer.byteLength(password, "utf8") > PASSWORD_MAX_BYTES;
  const matches = (await ctx.passwords.compare(password, user.password_hash)) && !tooLong;
  if (!matches) throw fieldError(path, "the current password is wrong");
  await ctx.loginFailuresPerEmail.reset(key);
  return user;
}
