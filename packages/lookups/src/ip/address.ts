/*
 * Hand-written IP parsers for the hot path: a lookup parses its address without allocating (no split, no
 * regex, no BigInt), writing IPv6 into a shared scratch array. JavaScript runs one call at a time, so the
 * scratch is never shared by two parses in flight; callers copy what they need before parsing again.
 */

/** The 128 bits of the last IPv6 address parsed, as four big-endian 32-bit words. */
export const ipv6Words = new Uint32Array(4);
const groups = new Uint16Array(8);

/** A dotted quad (no leading zeros, as node:net's isIPv4) → its unsigned 32-bit value, or -1. */
export function parseIpv4(text: string, from = 0, to = text.length): number {
  let value = 0;
  let part = 0;
  let digits = 0;
  let dots = 0;
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i);
    if (c === 46) {
      if (digits === 0 || dots === 3) return -1;
      value = value * 256 + part;
      part = 0;
      digits = 0;
      dots++;
      continue;
    }
    const d = c - 48;
    if (d < 0 || d > 9 || (digits === 1 && part === 0)) return -1;
    part = part * 10 + d;
    digits++;
    if (part > 255) return -1;
  }
  return digits === 0 || dots !== 3 ? -1 : value * 256 + part;
}

function hexDigit(c: number): number {
  if (c >= 48 && c <= 57) return c - 48;
  if (c >= 97 && c <= 102) return c - 87;
  if (c >= 65 && c <= 70) return c - 55;
  return -1;
}

/**
 * Any textual IPv6 form (compressed, full, leading zeros, a trailing dotted quad) → `ipv6Words`; false when
 * the text is not one. Zone ids (`%eth0`) and brackets are not addresses: the caller strips or refuses them.
 */
export function parseIpv6(text: string): boolean {
  const to = text.length;
  let n = 0;
  let gap = -1;
  let i = 0;
  if (to < 2) return false;
  if (text.charCodeAt(0) === 58) {
    if (text.charCodeAt(1) !== 58) return false;
    gap = 0;
    i = 2;
  }
  while (i < to) {
    const start = i;
    let group = 0;
    while (i < to && i - start < 5) {
      const d = hexDigit(text.charCodeAt(i));
      if (d < 0) break;
      group = group * 16 + d;
      i++;
    }
    if (i < to && text.charCodeAt(i) === 46) {
      // A trailing dotted quad stands for the last two groups.
      const v4 = n <= 6 ? parseIpv4(text, start, to) : -1;
      if (v4 < 0) return false;
      groups[n++] = v4 >>> 16;
      groups[n++] = v4 & 0xffff;
      i = to;
      break;
    }
    if (i === start || i - start > 4 || n >= 8) return false;
    groups[n++] = group;
    if (i === to) break;
    if (text.charCodeAt(i) !== 58) return false;
    i++;
    if (i < to && text.charCodeAt(i) === 58) {
      if (gap >= 0) return false;
      gap = n;
      i++;
    } else if (i === to) {
      return false; // a single trailing colon
    }
  }
  if (gap < 0 ? n !== 8 : n > 7) return false;
  // The groups after `::` move to the end; the gap between fills with zeros.
  const tail = gap < 0 ? 0 : n - gap;
  for (let k = 0; k < tail; k++) groups[7 - k] = groups[n - 1 - k] ?? 0;
  for (let k = gap < 0 ? 8 : gap; k < 8 - tail; k++) groups[k] = 0;
  for (let w = 0; w < 4; w++) {
    ipv6Words[w] = (((groups[2 * w] ?? 0) << 16) | (groups[2 * w + 1] ?? 0)) >>> 0;
  }
  return true;
}

/** Dotted-quad text of an unsigned 32-bit value. */
export function formatIpv4(value: number): string {
  return `${value >>> 24}.${(value >>> 16) & 255}.${(value >>> 8) & 255}.${value & 255}`;
}

/**
 * RFC 5952 text of four words: lower case, no leading zeros, the longest run of two or more zero groups
 * (the first on a tie) as `::`, and IPv4-mapped addresses in mixed notation (`::ffff:8.8.8.8`, §5).
 */
export function formatIpv6(words: ArrayLike<number>): string {
  // Into a scratch array and one string built by appending: this runs once per IPv6 lookup request
  // (canonicalIp), where arrays, slices and a closure per call cost more than the lookup itself.
  const g = formatGroups;
  for (let w = 0; w < 4; w++) {
    const word = words[w] ?? 0;
    g[2 * w] = word >>> 16;
    g[2 * w + 1] = word & 0xffff;
  }
  if (g[0] === 0 && g[1] === 0 && g[2] === 0 && g[3] === 0 && g[4] === 0 && g[5] === 0xffff) {
    return `::ffff:${formatIpv4(words[3] ?? 0)}`;
  }
  let best = -1;
  let bestLen = 1;
  for (let k = 0; k < 8; ) {
    if (g[k] !== 0) {
      k++;
      continue;
    }
    let end = k;
    while (end < 8 && g[end] === 0) end++;
    if (end - k > bestLen) {
      best = k;
      bestLen = end - k;
    }
    k = end;
  }
  if (best < 0) return groupsText(g, 0, 8);
  return `${groupsText(g, 0, best)}::${groupsText(g, best + bestLen, 8)}`;
}

const formatGroups = new Uint16Array(8);

/** Groups `from`..`to` of `g` in hex, joined by `:` (no array or closure made per call). */
function groupsText(g: Uint16Array, from: number, to: number): string {
  let out = "";
  for (let k = from; k < to; k++)
    out += k === from ? (g[k] as number).toString(16) : `:${(g[k] as number).toString(16)}`;
  return out;
}

export type CanonicalIp = { ok: true; ip: string; family: 4 | 6 } | { ok: false; problem: string };

/**
 * An address as users type it → its canonical text: surrounding whitespace and brackets around an IPv6
 * address are accepted; networks, zone ids, host names and the shorthand IPv4 forms (`127.1`, `0x7f.1`)
 * are refused, since a lookup answers for exactly one address.
 */
export function canonicalIp(raw: string): CanonicalIp {
  let text = raw.trim();
  const bracketed = text.startsWith("[") && text.endsWith("]");
  if (bracketed) text = text.slice(1, -1);
  if (text.includes("/")) return { ok: false, problem: "expected one IP address, not a network (CIDR)" };
  if (text.includes("%")) return { ok: false, problem: "expected an IP address without a zone id" };
  if (!bracketed) {
    const v4 = parseIpv4(text);
    if (v4 >= 0) return { ok: true, ip: formatIpv4(v4), family: 4 };
  }
  if (text.includes(":") && parseIpv6(text)) return { ok: true, ip: formatIpv6(ipv6Words), family: 6 };
  return { ok: false, problem: "expected an IPv4 or IPv6 address" };
}

/** The address as one number (IPv4: 32 bits, IPv6: 128), for prefix arithmetic; null when it is none. */
export function ipToBigInt(text: string): bigint | null {
  const v4 = parseIpv4(text);
  if (v4 >= 0) return BigInt(v4);
  if (!text.includes(":") || !parseIpv6(text)) return null;
  let value = 0n;
  for (const w of ipv6Words) value = (value << 32n) | BigInt(w);
  return value;
}
