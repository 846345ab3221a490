import { z } from "zod";
import { fieldError } from "../../http/errors.js";

/** Unicode characters (code points), as the limits in the spec count them. */
export function charCount(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

const emailCheck = z.email();

/** Trims, lower-cases the domain (the local part is the mailbox owner's) and validates. */
export function normaliseEmail(raw: string, path = "body.email"): string {
  const trimmed = raw.trim();
  const at = trimmed.lastIndexOf("@");
  const email = at > 0 ? `${trimmed.slice(0, at)}@${trimmed.slice(at + 1).toLowerCase()}` : trimmed;
  if (email.length > 254 || at > 64 || !emailCheck.safeParse(email).success) {
    throw fieldError(path, "not a valid email address");
  }
  return email;
}

/** bcrypt reads at most 72 bytes: longer passwords are refused rather than silently truncated. */
export const PASSWORD_MIN_CHARS = 8;
export const PASSWORD_MAX_BYTES = 72;

export function checkNewPassword(password: string, path = "body.password"): void {
  if (charCount(password) < PASSWORD_MIN_CHARS) {
    throw fieldError(path, `must be at least ${PASSWORD_MIN_CHARS} characters`);
  }
  if (Buffer.byteLength(password, "utf8") > PASSWORD_MAX_BYTES) {
    throw fieldError(path, `must be at most ${PASSWORD_MAX_BYTES} bytes in UTF-8 (bcrypt's limit)`);
  }
}

/** The canonical IANA name (`asia/shanghai` → `Asia/Shanghai`), or a 400 naming the field. */
export function canonicalTimeZone(tz: string, path = "body.timezone"): string {
  if (/^[A-Za-z][A-Za-z0-9_+\-/]{0,63}$/.test(tz)) {
    try {
      return new Intl.DateTimeFormat("en", { timeZone: tz }).resolvedOptions().timeZone;
    } catch {
      // fall through
    }
  }
  throw fieldError(path, "not an IANA time zone name (e.g. Europe/Berlin, UTC)");
}

/** `null`, blank → null (cleared); otherwise the trimmed text. */
export function clearableText(v: string | null): string | null {
  if (v === null) return null;
  const t = v.trim();
  return t === "" ? null : t;
}

/** The masked form of a phone number: country code and last four digits stay visible. */
export function maskPhone(phone: string | null): string {
  if (!phone) return "";
  const digits = phone.replace(/[^\d+]/g, "");
  if (digits.length <= 7) return "*".repeat(digits.length);
  return `${digits.slice(0, 3)}${"*".repeat(digits.length - 7)}${digits.slice(-4)}`;
}
