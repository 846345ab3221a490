import type { Kysely } from "kysely";
import type { Logger } from "pino";
import type { Database } from "../../db/schema.js";
import type { Authenticator, PresentedCredentials } from "../../http/authenticator.js";
import type { Principal, Scope } from "../../http/context.js";
import { ApiError } from "../../http/errors.js";
import type { ApiForm } from "../../http/security.js";
import { kindOfSecret } from "./credential-formats.js";
import { findKeyByHash, findSession, touchKey } from "./repo.js";
import { hashSecret } from "./secrets.js";
import { verifyAccessToken } from "./tokens.js";

/**
 * The `Authenticator` the accounts module implements; one per application (see `createAccountsContext`).
 * The `forget*` calls drop cache entries in this process; other controllers drop theirs when the change's
 * NOTIFY reaches their accounts watcher (`account-changes.ts`), and within the cache TTL at the latest.
 */
export interface CredentialVerifier extends Authenticator {
  /** Drops a revoked key from this process's cache at once. */
  forgetKey(id: string): void;
  forgetSession(jti: string): void;
  /** Drops every cached key and session of the account (its plan or credentials changed). */
  forgetUser(userId: string): void;
  /** Drops everything cached (changes may have been missed: the listen connection was down). */
  forgetAll(): void;
}

export interface VerifierOptions {
  db: Kysely<Database>;
  log: Logger;
  form: ApiForm;
  jwtKey: Uint8Array;
  /** How long a looked-up key or session is trusted without asking the database again. */
  cacheTtlMs?: number;
  /** `last_used_at` is written at most this often per key and process. */
  touchEveryMs?: number;
  now?: () => number;
}

type SecretKind = "api_key" | "pat" | "mcp";

interface CachedKey {
  id: string;
  userId: string;
  kind: SecretKind;
  scopes: Scope[];
  plan: string;
  expiresAt: number | null;
  revoked: boolean;
  fetchedAt: number;
  touchedAt: number;
}

interface CachedSession {
  userId: string;
  plan: string;
  expiresAt: number;
  revoked: boolean;
  fetchedAt: number;
}

const MAX_CACHED = 10_000;
const allScopes: readonly Scope[] = ["read", "write"];

function missing(form: ApiForm): ApiError {
  return new ApiError(
    "unauthorized",
    form === "a"
      ? "missing credentials: send Authorization: Bearer <token> (X-API-Key is not accepted)"
      : "missing credentials: send Authorization: Bearer <token> or X-API-Key: <api key>",
  );
}

function invalid(): ApiError {
  return new ApiError("unauthorized", "invalid, expired or revoked credentials", undefined, {
    "WWW-Authenticate": 'Bearer error="invalid_token"',
  });
}

/** An MCP token anywhere but the MCP entry point: refused by its prefix, whether or not it is valid. */
function mcpOnly(): ApiError {
  return new ApiError(
    "mcp_token_not_accepted",
    "MCP tokens (vantage_mcp_…) are accepted only at the MCP entry point, /v1/mcp; use an API key, a personal access token or a login session here",
    undefined,
    { "WWW-Authenticate": 'Bearer error="invalid_token"' },
  );
}

function remember<V>(map: Map<string, V>, key: string, value: V): void {
  map.delete(key);
  if (map.size >= MAX_CACHED) {
    const oldest = map.keys().next().value;
    if (oldest !== undefined) map.delete(oldest);
  }
  map.set(key, value);
}

export function createCredentialVerifier(opts: VerifierOptions): CredentialVerifier {
  const ttl = opts.cacheTtlMs ?? 10_000;
  const touchEvery = opts.touchEveryMs ?? 60_000;
  const now = opts.now ?? Date.now;
  const keys = new Map<string, CachedKey>(); // by secret hash
  const sessions = new Map<string, CachedSession>(); // by jti
  // Counts the forget calls. A lookup that was on its way when one came may have read the row as it was
  // before the change: it answers its own request, but is not cached (it would stay stale for the TTL).
  let forgets = 0;
  const forgot = () => {
    forgets++;
  };

  async function loadKey(hash: string): Promise<CachedKey | undefined> {
    const t = now();
    const hit = keys.get(hash);
    if (hit && t - hit.fetchedAt < ttl) return hit;
    const since = forgets;
    const row = await findKeyByHash(opts.db, hash);
    if (!row) {
      keys.delete(hash);
      return undefined;
    }
    const entry: CachedKey = {
      id: row.id,
      userId: row.user_id,
      kind: row.kind,
      scopes: row.scopes.filter((s): s is Scope => (allScopes as string[]).includes(s)),
      plan: row.plan,
      expiresAt: row.expires_at ? new Date(row.expires_at).getTime() : null,
      revoked: row.revoked_at !== null,
      fetchedAt: t,
      touchedAt: hit?.touchedAt ?? 0,
    };
    if (since === forgets) remember(keys, hash, entry);
    return entry;
  }

  async function bySecret(secret: string, kind: SecretKind): Promise<Principal> {
    const key = await loadKey(hashSecret(secret));
    const t = now();
    if (!key || key.kind !== kind || key.revoked || (key.expiresAt !== null && key.expiresAt <= t)) {
      throw invalid();
    }
    if (t - key.touchedAt >= touchEvery) {
      key.touchedAt = t;
      try {
        await touchKey(opts.db, key.id, new Date(t));
      } catch (err) {
        opts.log.warn({ err, key_id: key.id }, "could not record last_used_at");
      }
    }
    return { userId: key.userId, kind, credentialId: key.id, scopes: key.scopes, plan: key.plan };
  }

  async function byJwt(token: string): Promise<Principal> {
    const claims = await verifyAccessToken(opts.jwtKey, token);
    if (!claims) throw invalid();
    const t = now();
    let s = sessions.get(claims.jti);
    if (!s || t - s.fetchedAt >= ttl) {
      const since = forgets;
      const row = await findSession(opts.db, claims.jti);
      if (!row) throw invalid();
      s = {
        userId: row.user_id,
        plan: row.plan,
        expiresAt: new Date(row.expires_at).getTime(),
        revoked: row.revoked_at !== null,
        fetchedAt: t,
      };
      if (since === forgets) remember(sessions, claims.jti, s);
    }
    if (s.revoked || s.expiresAt <= t || s.userId !== claims.userId) throw invalid();
    return { userId: s.userId, kind: "jwt", credentialId: claims.jti, scopes: allScopes, plan: s.plan };
  }

  return {
    acceptsApiKeyHeader: opts.form === "b",
    async authenticate({ authorization, apiKey }: PresentedCredentials, authOpts: { mcp?: boolean } = {}) {
      let token: string | undefined;
      if (authorization !== undefined) {
        const m = /^Bearer +([^\s]+) *$/i.exec(authorization);
        if (!m) throw invalid();
        token = m[1]!;
      } else if (opts.form === "b" && apiKey !== undefined) {
        const key = apiKey.trim();
        if (kindOfSecret("b", key) !== "api_key") throw invalid();
        return bySecret(key, "api_key");
      }
      if (token === undefined) throw missing(opts.form);
      const kind = kindOfSecret(opts.form, token);
      if (kind === "mcp" && !authOpts.mcp) throw mcpOnly();
      if (kind) return bySecret(token, kind);
      if (token.split(".").length === 3) return byJwt(token);
      throw invalid();
    },
    forgetKey(id) {
      forgot();
      for (const [hash, k] of keys) if (k.id === id) keys.delete(hash);
    },
    forgetSession(jti) {
      forgot();
      sessions.delete(jti);
    },
    forgetUser(userId) {
      forgot();
      for (const [hash, k] of keys) if (k.userId === userId) keys.delete(hash);
      for (const [jti, s] of sessions) if (s.userId === userId) sessions.delete(jti);
    },
    forgetAll() {
      forgot();
      keys.clear();
      sessions.clear();
    },
  };
}
