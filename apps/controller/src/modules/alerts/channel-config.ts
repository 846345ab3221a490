import type { z } from "@hono/zod-openapi";
import { validationError } from "../../http/errors.js";
import { assertPublicUrl } from "../../lib/public-url.js";
import { alertChannels } from "./channels/registry.js";
import type { ChannelType } from "./channels/types.js";
import { SECRET_MASK } from "./types.js";

/*
 * A channel's settings between the request and the row: checked by the type's schema, completed with the
 * secrets the type makes, split into what is stored in the clear and what is sealed, masked when shown.
 */

/**
 * The settings checked by the type's schema; 400 on `body.config.<key>` (never echoing a value). A URL
 * setting whose host is written as a private address is refused now (422), unless `allowPrivate`: the
 * sending would refuse it every time (a name is checked when sending, see assertPublicUrl).
 */
export function parseConfig(
  type: ChannelType,
  raw: Record<string, unknown>,
  allowPrivate: boolean,
): Record<string, unknown> {
  const schema: z.ZodType<unknown> = alertChannels[type].configSchema;
  const parsed = schema.safeParse(raw);
  if (!parsed.success) throw validationError(parsed.error, "body.config");
  const config = parsed.data as Record<string, unknown>;
  for (const [key, value] of Object.entries(config))
    if (typeof value === "string" && /^https?:\/\//i.test(value))
      assertPublicUrl(value, `body.config.${key}`, allowPrivate);
  return config;
}

/**
 * The secret settings the type makes for a new channel whose config leaves them out (absent or null), made
 * now; empty when it makes none.
 */
export function generatedFor(type: ChannelType, raw: Record<string, unknown>): Record<string, string> {
  const makers: Record<string, (() => string) | undefined> = alertChannels[type]?.generatedSecrets ?? {};
  const out: Record<string, string> = {};
  for (const [key, make] of Object.entries(makers)) {
    if (make && (raw[key] === undefined || raw[key] === null)) out[key] = make();
  }
  return out;
}

/** A stored type this release does not know (a row written by hand, a type removed) has no secret fields. */
export const secretFieldsOf = (type: ChannelType): readonly string[] =>
  alertChannels[type]?.secretFields ?? [];

/** Settings split into what is stored in the clear and what is sealed. */
export function split(type: ChannelType, config: Record<string, unknown>) {
  const secretKeys = new Set(secretFieldsOf(type));
  const plain: Record<string, unknown> = {};
  const secrets: Record<string, string> = {};
  for (const [k, v] of Object.entries(config)) {
    if (v === undefined) continue;
    if (secretKeys.has(k)) secrets[k] = String(v);
    else plain[k] = v;
  }
  return { plain, secrets };
}

export function masked(
  plain: Record<string, unknown>,
  secretKeys: Iterable<string>,
): Record<string, unknown> {
  const out = { ...plain };
  for (const k of secretKeys) out[k] = SECRET_MASK;
  return out;
}
