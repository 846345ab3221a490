import { createHash, randomBytes } from "node:crypto";

const alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
/** 43 base-62 characters carry 256 bits; the secret is one word (no `-`), so a double-click selects it. */
const SECRET_CHARS = 43;
/** Characters of the random part kept in the display prefix (`sk_live_Ab3dE9`): 36 bits, not enough to guess. */
const DISPLAY_CHARS = 6;

/** A new secret `<prefix><43 base-62 chars>` (≥ 256 bits of entropy; rejection sampling keeps it unbiased). */
export function generateSecret(prefix: string): string {
  let out = "";
  while (out.length < SECRET_CHARS) {
    for (const byte of randomBytes(64)) {
      if (byte < 248 && out.length < SECRET_CHARS) out += alphabet[byte % 62];
    }
  }
  return `${prefix}${out}`;
}

/** The part of a secret that may be shown again: its kind prefix and the first characters. */
export function displayPrefix(secret: string, prefix: string): string {
  return secret.slice(0, prefix.length + DISPLAY_CHARS);
}

/** What is stored and looked up: hex SHA-256 of the whole secret (the secret is random, so no salt). */
export function hashSecret(secret: string): string {
  return createHash("sha256").update(secret).digest("hex");
}
