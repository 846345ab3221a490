import bcrypt from "bcryptjs";
import type { ApiKeyKind } from "../../db/tables/accounts.js";
import type { Principal, Scope } from "../../http/context.js";
import { ApiError } from "../../http/errors.js";
import {
  ipBucket,
  type RateLimiter,
  type RateLimitStatus,
  rateLimitedError,
} from "../../http/rate-limit/index.js";
import type { AccountsContext } from "./context.js";
import { newId } from "./ids.js";
import * as repo from "./repo.js";
import { displayPrefix, generateSecret, hashSecret } from "./secrets.js";
import { ACCESS_TOKEN_TTL_S, signAccessToken, signEmailToken, verifyEmailToken } from "./tokens.js";
import {
  canonicalTimeZone,
  checkNewPassword,
  clearableText,
  normaliseEmail,
  PASSWORD_MAX_BYTES,
} from "./validation.js";

/** bcrypt cost factor (2^10 rounds, ≈ 50–80 ms here): the floor OWASP accepts for bcrypt. */
export const BCRYPT_COST = 10;
/** Active API keys (and, separately, personal access tokens) one account may hold. */
export const MAX_KEYS_PER_ACCOUNT = 100;

export interface IssuedToken {
  userId: string;
  accessToken: string;
  expiresIn: number;
}

export type User = repo.UserRow;

async function issueSession(ctx: AccountsContext, userId: string): Promise<IssuedToken> {
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

function verificationMail(ctx: AccountsContext, email: string, token: string) {
  const link = ctx.publicUrl
    ? `\nOr open: ${ctx.publicUrl.replace(/\/$/, "")}/v1/auth/verify-email?token=${token}\n`
    : "";
  return {
    channel: "email" as const,
    destination: email,
    payload: {
      subject: "Verify your Vantage email address",
      text:
        "Welcome to Vantage.\n\nTo verify this email address, send the token below to POST /v1/auth/verify-email " +
        `as {"token": "…"}. It is valid for 48 hours.\n\nverification token: ${token}\n${link}`,
    },
  };
}

/** Creates the account, queues the verification message in the same transaction, and logs the user in. */
export async function register(
  ctx: AccountsContext,
  input: { email: string; password: string },
): Promise<IssuedToken> {
  const email = normaliseEmail(input.email);
  checkNewPassword(input.password);
  const passwordHash = await bcrypt.hash(input.password, BCRYPT_COST);
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

let dummyHash: Promise<string> | undefined;
let loginsSinceSweep = 0;

/** Takes back a hit counted by `consume`, unless its window has ended meanwhile (it would land in the next). */
async function giveBack(limiter: RateLimiter, key: string, counted: RateLimitStatus): Promise<void> {
  if (Date.now() < counted.resetAt) await limiter.consume(key, -1);
}

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
  dummyHash ??= bcrypt.hash("not-a-real-password", BCRYPT_COST);
  const hash = user?.password_hash ?? (await dummyHash);
  const matches = (await bcrypt.compare(input.password, hash)) && !tooLong;
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
  }
  return issueSession(ctx, user.id);
}

/** Revokes the session the request was made with. */
export async function logout(ctx: AccountsContext, principal: Principal): Promise<void> {
  if (principal.kind !== "jwt") {
    throw new ApiError(
      "forbidden",
      "logout ends a login session; this request used an API key or access token — delete it instead",
    );
  }
  await repo.revokeSession(ctx.db, principal.credentialId, principal.userId);
  ctx.credentials.forgetSession(principal.credentialId);
}

export async function getUser(ctx: AccountsContext, userId: string): Promise<User> {
  const user = await repo.findUserById(ctx.db, userId);
  if (!user) throw new ApiError("not_found", "account not found");
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
  if (!user) throw new ApiError("not_found", "account not found");
  return user;
}

export async function verifyEmail(ctx: AccountsContext, token: string): Promise<User> {
  const claims = await verifyEmailToken(ctx.jwtKey, token);
  const user = claims ? await repo.markEmailVerified(ctx.db, claims.userId, claims.email) : undefined;
  if (!user) {
    throw new ApiError("validation_error", "body.token: invalid or expired verification token", [
      { path: "body.token", message: "invalid or expired verification token" },
    ]);
  }
  return user;
}

export interface NewKeyInput {
  kind: ApiKeyKind;
  name: string;
  /** Omitted or empty → read and write. */
  scopes?: readonly Scope[] | undefined;
  /** Null → never expires. */
  expiresDays: number | null;
  /** The form's prefix for this kind (`sk_live_`, `vantage_live_`, `vantage_pat_`). */
  secretPrefix: string;
}

export interface CreatedKey {
  row: repo.KeyRow;
  /** The whole secret: returned once, never stored. */
  secret: string;
}

/** Needs only the database and logger, so tests and tools can issue keys without an application. */
export async function createKey(
  ctx: Pick<AccountsContext, "db" | "log">,
  userId: string,
  input: NewKeyInput,
): Promise<CreatedKey> {
  const scopes: Scope[] =
    input.scopes && input.scopes.length > 0 ? [...new Set(input.scopes)].sort() : ["read", "write"];
  const secret = generateSecret(input.secretPrefix);
  // Count and insert under a lock on the account's row, else concurrent creates all see a count under the
  // limit and all insert. A row lock rather than an advisory lock: it needs no key space shared with other
  // modules' advisory locks, and it tells a deleted account (404) from a full one. On PGlite (one
  // connection, transactions queued by the dialect) the lock is uncontended and changes nothing.
  const row = await ctx.db.transaction().execute(async (tx) => {
    if (!(await repo.lockUser(tx, userId))) throw new ApiError("not_found", "account not found");
    if ((await repo.countActiveKeys(tx, userId, input.kind)) >= MAX_KEYS_PER_ACCOUNT) {
      throw new ApiError(
        "conflict",
        `an account may hold at most ${MAX_KEYS_PER_ACCOUNT} active keys of a kind`,
      );
    }
    return repo.insertKey(tx, {
      id: newId(input.kind === "pat" ? "pat" : "key"),
      userId,
      kind: input.kind,
      name: input.name,
      hash: hashSecret(secret),
      prefix: displayPrefix(secret, input.secretPrefix),
      scopes,
      expiresAt: input.expiresDays === null ? null : new Date(Date.now() + input.expiresDays * 86_400_000),
    });
  });
  ctx.log.info({ user_id: userId, key_id: row.id, kind: input.kind }, "credential created");
  return { row, secret };
}

export async function listKeys(
  ctx: AccountsContext,
  userId: string,
  kind: ApiKeyKind,
  page: { limit: number; offset: number },
): Promise<{ items: repo.KeyRow[]; total: number }> {
  const [items, total] = await Promise.all([
    repo.listKeys(ctx.db, userId, kind, page),
    repo.countActiveKeys(ctx.db, userId, kind),
  ]);
  return { items, total };
}

/** Revokes one of the caller's keys; another account's id is 404 like an unknown one. */
export async function revokeKey(
  ctx: AccountsContext,
  userId: string,
  kind: ApiKeyKind,
  id: string,
): Promise<void> {
  const done = await repo.revokeKey(ctx.db, userId, kind, id);
  if (!done) throw new ApiError("not_found", `${kind === "pat" ? "access token" : "API key"} not found`);
  ctx.credentials.forgetKey(id);
  ctx.log.info({ user_id: userId, key_id: id }, "credential revoked");
}
