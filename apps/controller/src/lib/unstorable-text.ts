/**
 * Text PostgreSQL cannot hold: `text` and `jsonb` refuse U+0000, and `jsonb` refuses a UTF-16 surrogate
 * without its other half. Requests carrying such text are refused (400) before anything is stored; text
 * from the outside world that a probe reports is stored with U+FFFD in their place.
 */

const REPLACEMENT = "\ufffd";

const isHigh = (c: number) => c >= 0xd800 && c <= 0xdbff;
const isLow = (c: number) => c >= 0xdc00 && c <= 0xdfff;

/** True when `s` holds U+0000 or an unpaired surrogate. */
export function hasUnstorableChars(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0 || isLow(c)) return true;
    if (isHigh(c)) {
      if (!isLow(s.charCodeAt(i + 1))) return true;
      i++;
    }
  }
  return false;
}

/** `s` with every U+0000 and unpaired surrogate replaced by U+FFFD; `s` itself when there is none. */
export function replaceUnstorableChars(s: string): string {
  if (!hasUnstorableChars(s)) return s;
  let out = "";
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (isHigh(c) && isLow(s.charCodeAt(i + 1))) {
      out += s[i]! + s[i + 1]!;
      i++;
    } else out += c === 0 || isHigh(c) || isLow(c) ? REPLACEMENT : s[i]!;
  }
  return out;
}

/**
 * The path (`a.b.0`) of the first string or key in a parsed JSON value that holds unstorable text, or
 * undefined. Keys count too: they may become column values or jsonb keys.
 */
export function findUnstorableText(value: unknown, path: string[] = []): string | undefined {
  if (typeof value === "string") return hasUnstorableChars(value) ? path.join(".") : undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = findUnstorableText(value[i], [...path, String(i)]);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  if (value !== null && typeof value === "object") {
    for (const [k, v] of Object.entries(value)) {
      if (hasUnstorableChars(k)) return [...path, k].join(".");
      const found = findUnstorableText(v, [...path, k]);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}
