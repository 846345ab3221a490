import { lockAccount } from "../../db/owned.js";
import type { ApiKeyKind } from "../../db/tables/accounts.js";
import type { Principal, Scope } from "../../http/context.js";
import { ApiError, notFound } from "../../http/errors.js";
import { newId } from "../../lib/ids.js";
import { planOf } from "../../lib/plans.js";
import { announceAccountChange } from "./account-changes.js";
import type { AccountsContext } from "./context.js";
import { ALL_SCOPES, boundedTerms, type CreatorBounds, type KeyTerms } from "./key-bounds.js";
import * as repo from "./repo.js";
import { displayPrefix, generateSecret, hashSecret } from "./secrets.js";

/** How messages name each kind, and the prefix of its ids. */
const kindNames: Record<ApiKeyKind, { one: string; plural: string; idPrefix: string }> = {
  api_key: { one: "API key", plural: "API keys", idPrefix: "key" },
  pat: { one: "access token", plural: "access tokens", idPrefix: "pat" },
  mcp: { one: "MCP token", plural: "MCP tokens", idPrefix: "mcp" },
};

/** The ceiling of active keys of a kind per account, whatever the plan table says (null included). */
export const MAX_KEYS_PER_ACCOUNT = 100;

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

/** A key asked for through the API: its terms are bounded by the credential that asks (`key-bounds.ts`). */
export interface KeyRequest extends KeyTerms {
  kind: ApiKeyKind;
  name: string;
  secretPrefix: string;
}

/**
 * What the request's credential may hand on. A login session acts as the user: every scope and no
 * expiry of its own to pass on (its 15 minutes are a property of the session, not a limit on what the
 * user may create). An API key or access token hands on at most its own scopes and expiry.
 */
async function boundsOf(ctx: AccountsContext, principal: Principal): Promise<CreatorBounds> {
  if (principal.kind === "jwt") return { scopes: ALL_SCOPES, expiresAt: null };
  const key = await repo.findKeyById(ctx.db, principal.userId, principal.credentialId);
  if (!key || key.revoked_at !== null) {
    throw new ApiError("unauthorized", "invalid, expired or revoked credentials");
  }
  return {
    scopes: principal.scopes,
    expiresAt: key.expires_at === null ? null : new Date(key.expires_at).getTime(),
  };
}

/** Creates a key or access token for the caller, with at most the scopes and lifetime of its credential. */
export async function createKeyAs(
  ctx: AccountsContext,
  principal: Principal,
  req: KeyRequest,
): Promise<CreatedKey> {
  const terms = boundedTerms(await boundsOf(ctx, principal), req);
  return storeKey(ctx, principal.userId, { ...req, ...terms });
}

/**
 * Issues a key as the account itself (no credential bounds it). Needs only the database and logger, so
 * tests and tools can issue keys without an application.
 */
export async function createKey(
  ctx: Pick<AccountsContext, "db" | "log" | "plans">,
  userId: string,
  input: NewKeyInput,
): Promise<CreatedKey> {
  const terms = boundedTerms(
    { scopes: ALL_SCOPES, expiresAt: null },
    input.expiresDays === null
      ? { scopes: input.scopes, defaultExpiresDays: null }
      : { scopes: input.scopes, expiresDays: input.expiresDays, defaultExpiresDays: null },
  );
  return storeKey(ctx, userId, { ...input, ...terms });
}

async function storeKey(
  ctx: Pick<AccountsContext, "db" | "log" | "plans">,
  userId: string,
  input: { kind: ApiKeyKind; name: string; secretPrefix: string; scopes: Scope[]; expiresAt: Date | null },
): Promise<CreatedKey> {
  const secret = generateSecret(input.secretPrefix);
  // Count and insert under a lock on the account's row, else concurrent creates all see a count under the
  // limit and all insert. A row lock rather than an advisory lock: it needs no key space shared with other
  // modules' advisory locks, and it tells a deleted account (404) from a full one. On PGlite (one
  // connection, transactions queued by the dialect) the lock is uncontended and changes nothing.
  const row = await ctx.db.transaction().execute(async (tx) => {
    const user = await lockAccount(tx, userId);
    if (!user) throw notFound("account");
    const plan = planOf(user.plan);
    const limit = Math.min(ctx.plans[plan].api_keys ?? MAX_KEYS_PER_ACCOUNT, MAX_KEYS_PER_ACCOUNT);
    if ((await repo.countActiveKeys(tx, userId, input.kind)) >= limit) {
      const what = kindNames[input.kind].plural;
      throw new ApiError(
        "conflict",
        `the ${plan} plan allows ${limit} active ${what}: revoke one first, or move to a larger plan`,
        { limit, plan },
      );
    }
    return repo.insertKey(tx, {
      id: newId(kindNames[input.kind].idPrefix),
      userId,
      kind: input.kind,
      name: input.name,
      hash: hashSecret(secret),
      prefix: displayPrefix(secret, input.secretPrefix),
      scopes: input.scopes,
      expiresAt: input.expiresAt,
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

/**
 * Revokes one of the caller's keys; another account's id is 404 like an unknown one. Refused at once here,
 * and on other controllers as soon as the change's NOTIFY reaches them (the cache TTL, 10 s, while their
 * listen connection is down).
 */
export async function revokeKey(
  ctx: AccountsContext,
  userId: string,
  kind: ApiKeyKind,
  id: string,
): Promise<void> {
  const done = await ctx.db.transaction().execute(async (tx) => {
    const revoked = await repo.revokeKey(tx, userId, kind, id);
    if (revoked) await announceAccountChange(tx, userId);
    return revoked;
  });
  if (!done) throw notFound(kindNames[kind].one);
  ctx.credentials.forgetKey(id);
  ctx.log.info({ user_id: userId, key_id: id }, "credential revoked");
}
