import type { Principal } from "../../http/context.js";
import { ApiError, fieldError, notFound } from "../../http/errors.js";
import {
  consumeAll,
  giveBack,
  ipBucket,
  mailboxBucket,
  type RateLimiter,
  rateLimitedError,
} from "../../http/rate-limit/index.js";
import { newId } from "../../lib/ids.js";
import { type PlanName, planNames } from "../../lib/plans.js";
import { announceAccountChange } from "./account-changes.js";
import type { AccountsContext } from "./context.js";
import * as repo from "./repo.js";
import { ACCESS_TOKEN_TTL_S, signAccessToken, signEmailToken, verifyEmailToken } from "./tokens.js";
import {
  canonicalTimeZone,
  checkNewPassword,
  clearableText,
  normaliseEmail,
  PASSWORD_MAX_BYTES,
} from "./validation.js";

export interface IssuedToken {
  userId: string;
  accessToken: string;
  expiresIn: number;
}

export type User = repo.UserRow;

export async function issueSession(ctx: AccountsContext, userId: string): Promise<IssuedToken> {
  const nowS = Math.floor(Date.now() / 1000);
  const jti = newId("ses");
  await repo.insertSession(ctx.db, {
    id: jti,
    userId,
    expiresAt: new Date((nowS + ACCESS_TOKEN_TTL_S) * 1000),
  });
  const accessToken = await signAccessToken(ctx.jwtKey, userId, jti, nowS);
  return { userId, accessToken, expiresIn: ACCESS_TOKEN_TTL_S };
}

/**
 * The verification message: a link to the dashboard's verify page, which posts the token (the token rides
 * in the URL's fragment, never sent to a server, so opening the link cannot use it up by a GET), and the
 * token itself for API clients.
 */
function verificationMail(ctx: AccountsContext, email: string, token: string) {
  const link = `${ctx.publicUrl}/#/verify-email?token=${encodeURIComponent(token)}`;
  return {
    channel: "email" as const,
    destination: email,
    payload: {
      subject: "Verify your Vantage email address",
      text:
        `Welcome to Vantage.\n\nTo verify this email address, open this link:\n\n${link}\n\n` +
        "It is valid for 48 hours and works once. API clients can send the token below to " +
        `POST /v1/auth/verify-email as {"token": "…"}.\n\nverification token: ${token}\n`,
    },
  };
}

/**
 * Counts a registration attempt per client IP (IPv6: per /64) and per address, before any password is
 * hashed or mail queued; over either limit → 429 and the hits are given back (a refused attempt costs
 * nothing). Counting first, like login, means a burst of concurrent attempts cannot all pass the check.
 */
async function countRegistration(ctx: AccountsContext, email: string, clientIp: string): Promise<void> {
  const counters: [RateLimiter, string][] = [];
  if (ctx.registrationsPerIp) counters.push([ctx.registrationsPerIp, ipBucket(clientIp)]);
  if (ctx.registrationsPerAddress) counters.push([ctx.registrationsPerAddress, mailboxBucket(email)]);
  await consumeAll(counters, "too many registrations from this client or for this email address");
}

/**
 * Creates the account, queues the verification message in the same transaction, and logs the user in.
 * Registrations are limited per client IP and per address (`countRegistration`) before the bcrypt work.
 */
export async function register(
  ctx: AccountsContext,
  input: { email: string; password: string; clientIp: string },
): Promise<IssuedToken> {
  const email = normaliseEmail(input.email);
  checkNewPassword(input.password);
  await countRegistration(ctx, email, input.clientIp);
  const passwordHash = await ctx.passwords.hash(input.password);
  const userId = newId("usr");
  const token = await signEmailToken(ctx.jwtKey, userId, email, Math.floor(Date.now() / 1000));
  const created = await ctx.db.transaction().execute(async (tx) => {
    const user = await repo.insertUser(tx, { id: userId, email, passwordHash });
    if (user) await ctx.delivery.enqueue(tx, verificationMail(ctx, email, token));
    return user;
  });
  if (!created) throw new ApiError("conflict", "an account with this email already exists");
  ctx.log.info({ user_id: userId }, "account registered");
  return issueSession(ctx, userId);
}

let loginsSinceSweep = 0;

/**
 * Checks email and password. Every failure is the same 401, and an unknown email costs the same bcrypt
 * work as a wrong password, so neither the answer nor its timing tells whether an account exists.
 * Failures count per email and per client IP; over either limit → 429 before any password is checked.
 */
export async function login(
  ctx: AccountsContext,
  input: { email: string; password: string; clientIp: string },
): Promise<IssuedToken> {
  const emailKey = input.email.trim().toLowerCase();
  const ipKey = ipBucket(input.clientIp);
  // Count the attempt as a failure before checking the password, and give the hit back if it was not one:
  // reading the counters first would let a burst of concurrent guesses all pass the check. The price: more
  // than a limit's worth of simultaneous logins to one address (or from one IP) get 429 while in flight.
  const [byEmail, byIp] = await Promise.all([
    ctx.loginFailuresPerEmail.consume(emailKey),
    ctx.loginFailuresPerIp.consume(ipKey),
  ]);
  const blocked = [byEmail, byIp].filter((s) => s.exceeded);
  if (blocked.length > 0) {
    await Promise.all([
      giveBack(ctx.loginFailuresPerEmail, emailKey, byEmail),
      giveBack(ctx.loginFailuresPerIp, ipKey, byIp),
    ]);
    throw rateLimitedError(blocked, "too many failed logins");
  }

  const user = await repo.findUserByEmail(ctx.db, emailKey);
  const tooLong = Buffer.byteLength(input.password, "utf8") > PASSWORD_MAX_BYTES;
  let matches: boolean;
  try {
    // In the password pool, never on the event loop; an unknown email is compared with the dummy hash.
    matches =
      (await (user?.password_hash
        ? ctx.passwords.compare(input.password, user.password_hash)
        : ctx.passwords.compareUnknown(input.password))) && !tooLong;
  } catch (err) {
    // Not checked (the pool is full or stopping): not a failure, so the counted hits go back.
    await Promise.all([
      giveBack(ctx.loginFailuresPerEmail, emailKey, byEmail),
      giveBack(ctx.loginFailuresPerIp, ipKey, byIp),
    ]);
    throw err;
  }
  if (!user?.password_hash || !matches || user.status !== "active") {
    throw new ApiError("unauthorized", "invalid email or password");
  }
  await Promise.all([
    ctx.loginFailuresPerEmail.reset(emailKey),
    giveBack(ctx.loginFailuresPerIp, ipKey, byIp),
  ]);
  if (++loginsSinceSweep >= 200) {
    loginsSinceSweep = 0;
    await repo.deleteExpiredSessions(ctx.db);
    await repo.deleteExpiredRecovery(ctx.db);
  }
  return issueSession(ctx, user.id);
}

/**
 * Revokes the session the request was made with: refused at once here, and on other controllers as soon
 * as the change's NOTIFY reaches them (the cache TTL, 10 s, while their listen connection is down).
 */
export async function logout(ctx: AccountsContext, principal: Principal): Promise<void> {
  if (principal.kind !== "jwt") {
    throw new ApiError(
      "forbidden",
      "logout ends a login session; this request used an API key or access token — delete it instead",
    );
  }
  await ctx.db.transaction().execute(async (tx) => {
    if (await repo.revokeSession(tx, principal.credentialId, principal.userId)) {
      await announceAccountChange(tx, principal.userId);
    }
  });
  ctx.credentials.forgetSession(principal.credentialId);
}

/**
 * Moves the account to another plan; the plan it had, or undefined for an unknown account. Its new limits
 * apply at once: here the account's cached credentials are dropped, and every other controller drops
 * them when the NOTIFY sent with the change reaches it.
 */
export async function setPlan(
  ctx: AccountsContext,
  userId: string,
  plan: PlanName,
): Promise<{ before: string } | undefined> {
  // The type says it; a cast elsewhere must not store a plan nobody knows (it would read as free).
  if (!(planNames as readonly string[]).includes(plan)) throw new Error(`unknown plan "${plan}"`);
  const changed = await ctx.db.transaction().execute(async (tx) => {
    const before = await repo.setPlan(tx, userId, plan);
    if (before) await announceAccountChange(tx, userId);
    return before;
  });
  if (!changed) return undefined;
  ctx.credentials.forgetUser(userId);
  ctx.log.info({ user_id: userId, plan, before: changed.before }, "plan changed");
  return changed;
}

export async function getUser(ctx: AccountsContext, userId: string): Promise<User> {
  const user = await repo.findUserById(ctx.db, userId);
  if (!user) throw notFound("account");
  return user;
}

/** Omitted fields stay; `null` or blank clears display_name and bio. Lengths are checked by the schemas. */
export interface ProfilePatch {
  display_name?: string | null | undefined;
  bio?: string | null | undefined;
  locale?: string | undefined;
  timezone?: string | undefined;
  theme?: string | undefined;
}

export async function updateProfile(
  ctx: AccountsContext,
  userId: string,
  patch: ProfilePatch,
): Promise<User> {
  const set: repo.UserPatch = {};
  if (patch.display_name !== undefined) set.display_name = clearableText(patch.display_name);
  if (patch.bio !== undefined) set.bio = clearableText(patch.bio);
  if (patch.locale !== undefined) set.locale = patch.locale;
  if (patch.theme !== undefined) set.theme = patch.theme;
  if (patch.timezone !== undefined) set.timezone = canonicalTimeZone(patch.timezone);
  const user = await repo.updateUser(ctx.db, userId, set);
  if (!user) throw notFound("account");
  return user;
}

function badToken(message: string): ApiError {
  return fieldError("body.token", message);
}

/**
 * Marks the address verified. A token works once: the update applies only while the address is still
 * unverified, so a used token (or a second, concurrent use of one) is a 400. The `email_verified` flag is
 * the record of use; a token is bound to its user and address, so one for a former address is refused too.
 */
export async function verifyEmail(ctx: AccountsContext, token: string): Promise<User> {
  const claims = await verifyEmailToken(ctx.jwtKey, token);
  if (!claims) throw badToken("invalid or expired verification token");
  const user = await repo.markEmailVerified(ctx.db, claims.userId, claims.email);
  if (user) return user;
  const current = await repo.findUserById(ctx.db, claims.userId);
  if (current?.email === claims.email && current.email_verified) {
    throw badToken("this verification token has already been used");
  }
  throw badToken("invalid or expired verification token");
}
