import { type Kysely, type Selectable, sql, type Transaction } from "kysely";
import { jsonb } from "../../db/json.js";
import type { Database } from "../../db/schema.js";
import type { ApiKeyKind, ApiKeysTable, UsersTable } from "../../db/tables/accounts.js";

export type Executor = Kysely<Database> | Transaction<Database>;
export type UserRow = Selectable<UsersTable>;
export type KeyRow = Selectable<ApiKeysTable>;

export interface NewUser {
  id: string;
  email: string;
  passwordHash: string;
}

/** Inserts a user; undefined when the email is taken (case-insensitively). */
export async function insertUser(db: Executor, u: NewUser): Promise<UserRow | undefined> {
  return db
    .insertInto("users")
    .values({
      id: u.id,
      email: u.email,
      password_hash: u.passwordHash,
      phone: null,
      display_name: null,
      avatar_url: null,
      bio: null,
    })
    .onConflict((oc) => oc.expression(sql`lower(email)`).doNothing())
    .returningAll()
    .executeTakeFirst();
}

export async function findUserByEmail(db: Executor, email: string): Promise<UserRow | undefined> {
  return db
    .selectFrom("users")
    .selectAll()
    .where(sql<string>`lower(email)`, "=", email.toLowerCase())
    .executeTakeFirst();
}

export async function findUserById(db: Executor, id: string): Promise<UserRow | undefined> {
  return db.selectFrom("users").selectAll().where("id", "=", id).executeTakeFirst();
}

/**
 * Sets the account's plan; the plan it had, or undefined for an unknown account. The row is locked first,
 * so of two concurrent changes the second reports the plan the first left.
 */
export async function setPlan(
  tx: Transaction<Database>,
  userId: string,
  plan: string,
): Promise<{ before: string } | undefined> {
  const current = await tx
    .selectFrom("users")
    .select("plan")
    .where("id", "=", userId)
    .forNoKeyUpdate()
    .executeTakeFirst();
  if (!current) return undefined;
  await tx.updateTable("users").set({ plan, updated_at: new Date() }).where("id", "=", userId).execute();
  return { before: current.plan };
}

export interface UserPatch {
  display_name?: string | null;
  bio?: string | null;
  locale?: string;
  timezone?: string;
  theme?: string;
}

export async function updateUser(db: Executor, id: string, patch: UserPatch): Promise<UserRow | undefined> {
  if (Object.keys(patch).length === 0) return findUserById(db, id);
  return db
    .updateTable("users")
    .set({ ...patch, updated_at: new Date() })
    .where("id", "=", id)
    .returningAll()
    .executeTakeFirst();
}

/**
 * Marks the email verified only if it is still the address the token was issued for and not verified yet:
 * undefined otherwise, so of two uses of one token (even concurrent ones) only the first succeeds.
 */
export async function markEmailVerified(
  db: Executor,
  id: string,
  email: string,
): Promise<UserRow | undefined> {
  return db
    .updateTable("users")
    .set({ email_verified: true, updated_at: new Date() })
    .where("id", "=", id)
    .where("email", "=", email)
    .where("email_verified", "=", false)
    .returningAll()
    .executeTakeFirst();
}

export async function insertSession(
  db: Executor,
  s: { id: string; userId: string; expiresAt: Date },
): Promise<void> {
  await db.insertInto("sessions").values({ id: s.id, user_id: s.userId, expires_at: s.expiresAt }).execute();
}

export async function findSession(db: Executor, id: string) {
  return db
    .selectFrom("sessions")
    .innerJoin("users", "users.id", "sessions.user_id")
    .select(["sessions.id", "sessions.user_id", "sessions.expires_at", "sessions.revoked_at", "users.plan"])
    .where("sessions.id", "=", id)
    .executeTakeFirst();
}

/** Revokes the account's session; false when it was revoked already (or is not theirs). */
export async function revokeSession(db: Executor, id: string, userId: string): Promise<boolean> {
  const row = await db
    .updateTable("sessions")
    .set({ revoked_at: new Date() })
    .where("id", "=", id)
    .where("user_id", "=", userId)
    .where("revoked_at", "is", null)
    .returning("id")
    .executeTakeFirst();
  return row !== undefined;
}

/** Housekeeping: sessions that expired more than a day ago are no longer needed for revocation checks. */
export async function deleteExpiredSessions(db: Executor): Promise<void> {
  await db
    .deleteFrom("sessions")
    .where("expires_at", "<", new Date(Date.now() - 24 * 3600_000))
    .execute();
}

export interface NewKey {
  id: string;
  userId: string;
  kind: ApiKeyKind;
  name: string;
  hash: string;
  prefix: string;
  scopes: string[];
  expiresAt: Date | null;
}

export async function insertKey(db: Executor, k: NewKey): Promise<KeyRow> {
  return db
    .insertInto("api_keys")
    .values({
      id: k.id,
      user_id: k.userId,
      kind: k.kind,
      name: k.name,
      key_hash: k.hash,
      key_prefix: k.prefix,
      // A plain string parameter would be stored as a JSON string by postgres.js: cast through text.
      scopes: jsonb(k.scopes),
      expires_at: k.expiresAt,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** One of the account's keys or tokens by id (revoked ones included), for the bounds of what it creates. */
export async function findKeyById(db: Executor, userId: string, id: string) {
  return db
    .selectFrom("api_keys")
    .select(["id", "scopes", "expires_at", "revoked_at"])
    .where("id", "=", id)
    .where("user_id", "=", userId)
    .executeTakeFirst();
}

/** The one indexed lookup behind every API key and personal access token check. */
export async function findKeyByHash(db: Executor, hash: string) {
  return db
    .selectFrom("api_keys")
    .innerJoin("users", "users.id", "api_keys.user_id")
    .select([
      "api_keys.id",
      "api_keys.user_id",
      "api_keys.kind",
      "api_keys.scopes",
      "api_keys.expires_at",
      "api_keys.revoked_at",
      "users.plan",
    ])
    .where("api_keys.key_hash", "=", hash)
    .executeTakeFirst();
}

export async function countActiveKeys(db: Executor, userId: string, kind: ApiKeyKind): Promise<number> {
  const row = await db
    .selectFrom("api_keys")
    .select((eb) => eb.fn.countAll().as("n"))
    .where("user_id", "=", userId)
    .where("kind", "=", kind)
    .where("revoked_at", "is", null)
    .executeTakeFirstOrThrow();
  // postgres.js returns bigint counts as strings, PGlite as numbers.
  return Number(row.n);
}

export async function listKeys(
  db: Executor,
  userId: string,
  kind: ApiKeyKind,
  page: { limit: number; offset: number },
): Promise<KeyRow[]> {
  return db
    .selectFrom("api_keys")
    .selectAll()
    .where("user_id", "=", userId)
    .where("kind", "=", kind)
    .where("revoked_at", "is", null)
    .orderBy("created_at", "desc")
    .orderBy("id", "desc")
    .limit(page.limit)
    .offset(page.offset)
    .execute();
}

/** Revokes the caller's own key; false when there is no such active key of theirs. */
export async function revokeKey(
  db: Executor,
  userId: string,
  kind: ApiKeyKind,
  id: string,
): Promise<boolean> {
  const row = await db
    .updateTable("api_keys")
    .set({ revoked_at: new Date() })
    .where("id", "=", id)
    .where("user_id", "=", userId)
    .where("kind", "=", kind)
    .where("revoked_at", "is", null)
    .returning("id")
    .executeTakeFirst();
  return row !== undefined;
}

export async function touchKey(db: Executor, id: string, at: Date): Promise<void> {
  await db.updateTable("api_keys").set({ last_used_at: at }).where("id", "=", id).execute();
}

// ---- password resets and refresh credentials (stored as hex SHA-256 of the secret) ----

export async function setPasswordHash(db: Executor, userId: string, passwordHash: string): Promise<void> {
  await db
    .updateTable("users")
    .set({ password_hash: passwordHash, updated_at: new Date() })
    .where("id", "=", userId)
    .execute();
}

/** Revokes every live session of the account but `exceptJti`; how many were revoked. */
export async function revokeSessions(db: Executor, userId: string, exceptJti?: string): Promise<number> {
  let q = db
    .updateTable("sessions")
    .set({ revoked_at: new Date() })
    .where("user_id", "=", userId)
    .where("revoked_at", "is", null)
    .where("expires_at", ">", new Date());
  if (exceptJti !== undefined) q = q.where("id", "!=", exceptJti);
  const rows = await q.returning("id").execute();
  return rows.length;
}

export async function insertPasswordReset(
  db: Executor,
  r: { id: string; userId: string; hash: string; expiresAt: Date },
): Promise<void> {
  await db
    .insertInto("password_resets")
    .values({ id: r.id, user_id: r.userId, token_hash: r.hash, expires_at: r.expiresAt })
    .execute();
}

/**
 * Uses a reset token: marks it used only if it is unused and unexpired, so of two uses (even concurrent
 * ones) only the first gets the account's id. The account's other unused tokens are spent with it.
 */
export async function consumePasswordReset(db: Executor, hash: string): Promise<string | undefined> {
  const now = new Date();
  const row = await db
    .updateTable("password_resets")
    .set({ used_at: now })
    .where("token_hash", "=", hash)
    .where("used_at", "is", null)
    .where("expires_at", ">", now)
    .returning("user_id")
    .executeTakeFirst();
  if (!row) return undefined;
  await db
    .updateTable("password_resets")
    .set({ used_at: now })
    .where("user_id", "=", row.user_id)
    .where("used_at", "is", null)
    .execute();
  return row.user_id;
}

export async function insertRefreshToken(
  db: Executor,
  r: { id: string; userId: string; familyId: string; hash: string; expiresAt: Date },
): Promise<void> {
  await db
    .insertInto("refresh_tokens")
    .values({
      id: r.id,
      user_id: r.userId,
      family_id: r.familyId,
      token_hash: r.hash,
      expires_at: r.expiresAt,
    })
    .execute();
}

export async function findRefreshToken(db: Executor, hash: string) {
  return db
    .selectFrom("refresh_tokens")
    .innerJoin("users", "users.id", "refresh_tokens.user_id")
    .select([
      "refresh_tokens.id",
      "refresh_tokens.user_id",
      "refresh_tokens.family_id",
      "refresh_tokens.expires_at",
      "refresh_tokens.rotated_at",
      "refresh_tokens.revoked_at",
      "users.status",
    ])
    .where("refresh_tokens.token_hash", "=", hash)
    .executeTakeFirst();
}

/** Marks a refresh credential rotated; false when it was rotated or revoked already (a concurrent use). */
export async function markRefreshRotated(db: Executor, id: string): Promise<boolean> {
  const row = await db
    .updateTable("refresh_tokens")
    .set({ rotated_at: new Date() })
    .where("id", "=", id)
    .where("rotated_at", "is", null)
    .where("revoked_at", "is", null)
    .returning("id")
    .executeTakeFirst();
  return row !== undefined;
}

/** Revokes the account's refresh credentials: one family, or all but `exceptFamily`, or all. */
export async function revokeRefreshTokens(
  db: Executor,
  userId: string,
  which: { family?: string; exceptFamily?: string } = {},
): Promise<void> {
  let q = db
    .updateTable("refresh_tokens")
    .set({ revoked_at: new Date() })
    .where("user_id", "=", userId)
    .where("revoked_at", "is", null);
  if (which.family !== undefined) q = q.where("family_id", "=", which.family);
  if (which.exceptFamily !== undefined) q = q.where("family_id", "!=", which.exceptFamily);
  await q.execute();
}

/** Housekeeping: reset tokens and refresh credentials expired more than a day ago. */
export async function deleteExpiredRecovery(db: Executor): Promise<void> {
  const before = new Date(Date.now() - 24 * 3600_000);
  await db.deleteFrom("password_resets").where("expires_at", "<", before).execute();
  await db.deleteFrom("refresh_tokens").where("expires_at", "<", before).execute();
}

/**
 * Deletes the account; every table that names the user with `on delete cascade` (sessions, keys, monitors,
 * alerts, status pages, billing records, …) goes with it. False when there was none (deleted meanwhile).
 */
export async function deleteUser(db: Executor, id: string): Promise<boolean> {
  const r = await db.deleteFrom("users").where("id", "=", id).executeTakeFirst();
  return Number(r.numDeletedRows) > 0;
}
