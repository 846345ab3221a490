import type { KeyRow, UserRow } from "./repo.js";
import type { IssuedToken } from "./service.js";
import { maskPhone } from "./validation.js";

type ScopeName = "read" | "write";
type Locale = "cn" | "en" | "tw";
type Theme = "system" | "light" | "dark";

const iso = (d: Date | string | null): string | null => (d === null ? null : new Date(d).toISOString());

export function toToken(t: IssuedToken) {
  return { access_token: t.accessToken, token_type: "Bearer" as const, expires_in: t.expiresIn };
}

export function toProfileA(u: UserRow) {
  return {
    id: u.id,
    email: u.email,
    email_verified: u.email_verified,
    phone: maskPhone(u.phone),
    phone_verified: u.phone_verified,
    has_password: u.password_hash !== null,
    display_name: u.display_name,
    avatar_url: u.avatar_url,
    bio: u.bio,
    locale: u.locale as Locale,
    timezone: u.timezone,
    theme: u.theme as Theme,
    status: u.status,
  };
}

export function toProfileB(u: UserRow) {
  return {
    id: u.id,
    email: u.email,
    display_name: u.display_name,
    plan: u.plan,
    email_verified: u.email_verified,
  };
}

function keyTimes(k: KeyRow) {
  return {
    created_at: new Date(k.created_at).toISOString(),
    expires_at: iso(k.expires_at),
    last_used_at: iso(k.last_used_at),
  };
}

export function toKeyA(k: KeyRow) {
  return {
    id: k.id,
    name: k.name,
    key_prefix: k.key_prefix,
    scopes: k.scopes as ScopeName[],
    ...keyTimes(k),
  };
}

export function toKeyB(k: KeyRow) {
  return { id: k.id, name: k.name, prefix: k.key_prefix, ...keyTimes(k) };
}

export function toPat(k: KeyRow) {
  return {
    id: k.id,
    name: k.name,
    token_prefix: k.key_prefix,
    scopes: k.scopes as ScopeName[],
    ...keyTimes(k),
  };
}
