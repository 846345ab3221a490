import type { Principal } from "../../http/context.js";
import { ApiError, fieldError } from "../../http/errors.js";
import { consumeAll, ipBucket, mailboxBucket } from "../../http/rate-limit/index.js";
import { newId } from "../../lib/ids.js";
import { announceAccountChange } from "./account-changes.js";
import type { AccountsContext } from "./context.js";
import { checkCurrentPassword, requireLoginSession } from "./current-password.js";
import * as repo from "./repo.js";
import { generateSecret, hashSecret } from "./secrets.js";
import { type IssuedToken, issueSession } from "./service.js";
import { checkNewPassword } from "./validation.js";

/** A mailed password reset token works once, within 30 minutes. */
export const RESET_TOKEN_TTL_S = 30 * 60;
/** A dashboard refresh credential lives 14 days from its last use (each use rotates it). */
export const REFRESH_TTL_S = 14 * 24 * 3600;
/**
 * A rotated refresh credential presented again within this many seconds is a race (two tabs refreshing
 * at once) and only refused; later it is a replay of a stolen one, and its whole family is revoked.
 */
export const REFRESH_REUSE_GRACE_S = 30;

function expired(): ApiError {
  return new ApiError("unauthorized", "no valid refresh credential: sign in again");
}

/** A new refresh credential: in `family` (a rotation) or starting one (a sign-in). The secret is returned once. */
async function issueRefresh(db: repo.Executor, userId: string, family = newId("rff")): Promise<string> {
  const secret = generateSecret("");
  await repo.insertRefreshToken(db, {
    id: newId("rft"),
    userId,
    familyId: family,
    hash: hashSecret(secret),
    expiresAt: new Date(Date.now() + REFRESH_TTL_S * 1000),
  });
  return secret;
}

/** Starts a dashboard session after a login or registration: the refresh credential for the cookie. */
export function startRefreshFamily(ctx: AccountsContext, userId: string): Promise<string> {
  return issueRefresh(ctx.db, userId);
}

/**
 * Trades a refresh credential for a new access token and the next refresh credential (rotation). A
 * credential that is unknown, expired, revoked or already rotated → 401; an old rotated one presented
 * again after the grace revokes its family (it was copied), which ends the thief's and the owner's session.
 */
export async function refreshSession(
  ctx: AccountsContext,
  secret: string,
): Promise<{ token: IssuedToken; refresh: string }> {
  const row = await repo.findRefreshToken(ctx.db, hashSecret(secret));
  const now = Date.now();
  if (
    !row ||
    row.revoked_at !== null ||
    new Date(row.expires_at).getTime() <= now ||
    row.status !== "active"
  ) {
    throw expired();
  }
  if (row.rotated_at !== null) {
    if (now - new Date(row.rotated_at).getTime() > REFRESH_REUSE_GRACE_S * 1000) {
      await repo.revokeRefreshTokens(ctx.db, row.user_id, { family: row.family_id });
      ctx.log.warn({ user_id: row.user_id }, "rotated refresh credential reused: its sign-in is revoked");
    }
    throw expired();
  }
  const refresh = await ctx.db.transaction().execute(async (tx) => {
    if (!(await repo.markRefreshRotated(tx, row.id))) return undefined;
    return issueRefresh(tx, row.user_id, row.family_id);
  });
  if (refresh === undefined) throw expired();
  return { token: await issueSession(ctx, row.user_id), refresh };
}

/** The family of a refresh credential the account owns (any state), for sign-out and password change. */
async function familyOf(ctx: AccountsContext, secret: string | undefined, userId: string) {
  if (!secret) return undefined;
  const row = await repo.findRefreshToken(ctx.db, hashSecret(secret));
  return row?.user_id === userId ? row.family_id : undefined;
}

/** Sign-out: the refresh credential's whole family is revoked (the session it belongs to ends). */
export async function endRefreshFamily(
  ctx: AccountsContext,
  secret: string | undefined,
  userId: string,
): Promise<void> {
  const family = await familyOf(ctx, secret, userId);
  if (family) await repo.revokeRefreshTokens(ctx.db, userId, { family });
}

/** Every session and refresh credential of the account ends, but those named (the caller's own). */
async function revokeOthers(
  ctx: AccountsContext,
  userId: string,
  keep: { jti?: string | undefined; family?: string | undefined } = {},
): Promise<void> {
  await ctx.db.transaction().execute(async (tx) => {
    await repo.revokeSessions(tx, userId, keep.jti);
    await repo.revokeRefreshTokens(tx, userId, keep.family ? { exceptFamily: keep.family } : {});
    await announceAccountChange(tx, userId);
  });
  ctx.credentials.forgetUser(userId);
}

function resetMail(ctx: AccountsContext, email: string, token: string) {
  const link = `${ctx.publicUrl}/#/reset-password?token=${encodeURIComponent(token)}`;
  return {
    channel: "email" as const,
    destination: email,
    payload: {
      subject: "Reset your Vantage password",
      text:
        "Someone (we hope you) asked to reset the password of this Vantage account. To choose a new " +
        `password, open this link:\n\n${link}\n\nIt is valid for 30 minutes and works once. Setting a new ` +
        "password signs out every session. If you did not ask for this, ignore this message: your " +
        "password stays as it is.\n\nAPI clients can send the token below with the new password to " +
        `POST /v1/auth/password-reset/confirm.\n\nreset token: ${token}\n`,
    },
  };
}

/**
 * Mails a reset link when the address belongs to an active account; the answer is the same either way (no
 * account enumeration). Requests count per client IP and per address whether or not the account exists;
 * over either limit → 429 for any address alike.
 */
export async function requestPasswordReset(
  ctx: AccountsContext,
  input: { email: string; clientIp: string },
): Promise<void> {
  const email = input.email.trim().toLowerCase();
  await consumeAll(
    [
      [ctx.resetsPerIp, ipBucket(input.clientIp)],
      [ctx.resetsPerAddress, mailboxBucket(email)],
    ],
    "too many password reset requests from this client or for this address",
  );
  const user = await repo.findUserByEmail(ctx.db, email);
  const token = generateSecret("");
  if (user?.status !== "active") return;
  await ctx.db.transaction().execute(async (tx) => {
    await repo.insertPasswordReset(tx, {
      id: newId("pwr"),
      userId: user.id,
      hash: hashSecret(token),
      expiresAt: new Date(Date.now() + RESET_TOKEN_TTL_S * 1000),
    });
    await ctx.delivery.enqueue(tx, resetMail(ctx, user.email, token));
  });
  ctx.log.info({ user_id: user.id }, "password reset requested");
}

/**
 * Sets a new password with a mailed token: the token and the account's other reset tokens are spent, every
 * session and refresh credential of the account is revoked, and the address counts as verified (the link
 * reached it). A used, expired or unknown token → 400 on `body.token`.
 */
export async function resetPassword(
  ctx: AccountsContext,
  input: { token: string; password: string },
): Promise<void> {
  checkNewPassword(input.password);
  const passwordHash = await ctx.passwords.hash(input.password);
  const userId = await ctx.db.transaction().execute(async (tx) => {
    const id = await repo.consumePasswordReset(tx, hashSecret(input.token));
    if (id) {
      await repo.setPasswordHash(tx, id, passwordHash);
      await tx.updateTable("users").set({ email_verified: true }).where("id", "=", id).execute();
    }
    return id;
  });
  if (!userId) throw fieldError("body.token", "invalid, expired or already used reset token");
  await revokeOthers(ctx, userId);
  ctx.log.info({ user_id: userId }, "password reset");
}

/**
 * Changes the password of the signed-in account: only a login session may (not an API key), and the
 * current password must match (wrong ones count as failed logins for the address, 429 beyond the limit).
 * Every other session and refresh credential is revoked; the caller's session and its cookie's family stay.
 */
export async function changePassword(
  ctx: AccountsContext,
  principal: Principal,
  input: { current_password: string; new_password: string; refresh?: string | undefined },
): Promise<void> {
  requireLoginSession(principal, "change the password");
  checkNewPassword(input.new_password, "body.new_password");
  const user = await checkCurrentPassword(
    ctx,
    principal.userId,
    input.current_password,
    "body.current_password",
  );
  await repo.setPasswordHash(ctx.db, user.id, await ctx.passwords.hash(input.new_password));
  const family = await familyOf(ctx, input.refresh, user.id);
  await revokeOthers(ctx, user.id, { jti: principal.credentialId, family });
  ctx.log.info({ user_id: user.id }, "password changed");
}
