import type { Scope } from "../../http/context.js";
import { ApiError, fieldError } from "../../http/errors.js";

const DAY_MS = 86_400_000;
export const ALL_SCOPES: readonly Scope[] = ["read", "write"];

/** What the credential making a request may hand on: its own scopes and its own expiry (null = never). */
export interface CreatorBounds {
  scopes: readonly Scope[];
  expiresAt: number | null;
}

/** A new key's scopes and lifetime as the caller asked for them. */
export interface KeyTerms {
  /** Omitted or `[]` → every scope the creator has. */
  scopes?: readonly Scope[] | undefined;
  /** As asked for; it must not outlive the creator. */
  expiresDays?: number | undefined;
  /** The lifetime when `expiresDays` is omitted (null = never), shortened to the creator's own expiry. */
  defaultExpiresDays: number | null;
}

/**
 * The scopes and expiry of a key created by `creator`: at most the creator's scopes (a scope it lacks →
 * 403 `insufficient_scope`) and no later than the creator's expiry (an explicit `expires_days` beyond it →
 * 400 on `body.expires_days`; an omitted one is shortened to it). Without these bounds a write-only or
 * short-lived key could mint itself a read+write key valid for 90 days.
 */
export function boundedTerms(
  creator: CreatorBounds,
  terms: KeyTerms,
  now = Date.now(),
): { scopes: Scope[]; expiresAt: Date | null } {
  const asked = terms.scopes && terms.scopes.length > 0 ? terms.scopes : creator.scopes;
  const lacking = ALL_SCOPES.filter((s) => asked.includes(s) && !creator.scopes.includes(s));
  if (lacking.length > 0) {
    throw new ApiError(
      "insufficient_scope",
      `this credential lacks the ${lacking.map((s) => `"${s}"`).join(" and ")} scope, so it cannot create a ` +
        "key with it: a key or token creates keys with at most its own scopes (log in to act as the account)",
      { requested_scopes: [...asked], granted_scopes: [...creator.scopes] },
      { "WWW-Authenticate": `Bearer error="insufficient_scope", scope="${lacking.join(" ")}"` },
    );
  }

  let expiresAt: number | null;
  if (terms.expiresDays !== undefined) {
    expiresAt = now + terms.expiresDays * DAY_MS;
    if (creator.expiresAt !== null && expiresAt > creator.expiresAt) throw outlives(creator.expiresAt, now);
  } else {
    expiresAt = terms.defaultExpiresDays === null ? null : now + terms.defaultExpiresDays * DAY_MS;
    if (creator.expiresAt !== null && (expiresAt === null || expiresAt > creator.expiresAt)) {
      expiresAt = creator.expiresAt;
    }
  }
  return {
    scopes: [...new Set(asked)].sort(),
    expiresAt: expiresAt === null ? null : new Date(expiresAt),
  };
}

function outlives(creatorExpiry: number, now: number): ApiError {
  const days = Math.floor((creatorExpiry - now) / DAY_MS);
  const at = new Date(creatorExpiry).toISOString();
  const message =
    `must not outlive the credential making this request, which expires at ${at}: ` +
    (days >= 1
      ? `at most ${days} day${days === 1 ? "" : "s"}, or omit it to expire with that credential`
      : "omit it to expire with that credential");
  return fieldError("body.expires_days", message);
}
