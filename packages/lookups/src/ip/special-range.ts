import { type BlockedRange, blockedIpv4Ranges, blockedIpv6Ranges } from "@vantage/probes/target-guard";
import { formatIpv4, ipv6Words, parseIpv4, parseIpv6 } from "./address.js";

/** A canonical address's fate: answered as a special range, or looked up as `address`. */
export type AddressClass = { reserved: string } | { lookup: string };

/*
 * The target guard decides what is special: its tables (every IANA special-purpose range) and its
 * unpacking of IPv6 forms that carry an IPv4 address (checkAddress and embeddedForms in
 * @vantage/probes/src/target-guard.ts). checkAddress parses with BigInt and allocates a verdict, about
 * 4 µs a call, twenty times the data's own lookup, so its decisions are re-derived here on 32-bit words:
 * the same tables, compiled once, and the same order of rules. special-range.test.ts holds checkAddress
 * as the oracle and compares the two over every range boundary, random and embedded addresses.
 *
 * The guard's extra "metadata" entries are addresses a prober must not reach, not special ranges:
 * 169.254.169.254 is link-local anyway, but 168.63.129.16 (Azure's wire server) is a public Microsoft
 * address and is looked up. Where the guard would say "metadata", the address (or the embedded IPv4
 * address that hit) is matched again without the metadata entries.
 */

interface Table {
  /** Per range, `words` big-endian 32-bit words of the base, already masked. */
  base: Uint32Array;
  mask: Uint32Array;
  category: string[];
  metadata: boolean[];
  words: number;
}

function compile(ranges: readonly BlockedRange[], words: 1 | 4): Table {
  const table: Table = {
    base: new Uint32Array(ranges.length * words),
    mask: new Uint32Array(ranges.length * words),
    category: [],
    metadata: [],
    words,
  };
  ranges.forEach((r, i) => {
    const [text = "", length = ""] = r.cidr.split("/");
    const v4 = words === 1 ? parseIpv4(text) : -1;
    if (words === 1 ? v4 < 0 : !parseIpv6(text)) throw new Error(`bad range ${r.cidr}`);
    for (let w = 0, left = Number(length); w < words; w++, left -= 32) {
      const mask = left >= 32 ? 0xffffffff : left <= 0 ? 0 : ~(0xffffffff >>> left) >>> 0;
      const word = words === 1 ? v4 : (ipv6Words[w] ?? 0);
      table.mask[i * words + w] = mask;
      table.base[i * words + w] = (word & mask) >>> 0;
    }
    table.category.push(r.category);
    table.metadata.push(r.category === "metadata");
  });
  return table;
}

const v4Table = compile(blockedIpv4Ranges, 1);
const v6Table = compile(blockedIpv6Ranges, 4);

/**
 * Which leading bits some range touches: a 1 per first octet (IPv4) or first 16-bit group (IPv6) that a
 * range overlaps. Most public addresses fall where no range does and skip the scan altogether.
 */
function touched(table: Table, bits: 8 | 16): Uint8Array {
  const flags = new Uint8Array(1 << bits);
  const shift = 32 - bits;
  for (let i = 0, j = 0; i < table.category.length; i++, j += table.words) {
    const base = table.base[j] ?? 0;
    const last = (base | ~(table.mask[j] ?? 0)) >>> 0;
    flags.fill(1, base >>> shift, (last >>> shift) + 1);
  }
  return flags;
}
const v4Touched = touched(v4Table, 8);
const v6Touched = touched(v6Table, 16);

/** Index of the first IPv4 range holding `n` (the guard's first-match order), or -1. */
function matchV4(n: number, skipMetadata: boolean): number {
  if (v4Touched[n >>> 24] === 0) return -1;
  const { base, mask, metadata } = v4Table;
  for (let i = 0; i < metadata.length; i++) {
    if (((n & (mask[i] ?? 0)) ^ (base[i] ?? 0)) === 0 && !(skipMetadata && metadata[i])) return i;
  }
  return -1;
}

/** As matchV4, for the four words in `ipv6Words`, metadata entries skipped (see the file comment). */
function matchV6(): number {
  const a = ipv6Words[0] ?? 0;
  if (v6Touched[a >>> 16] === 0) return -1;
  const { base, mask, metadata } = v6Table;
  const b = ipv6Words[1] ?? 0;
  const c = ipv6Words[2] ?? 0;
  const d = ipv6Words[3] ?? 0;
  for (let i = 0, j = 0; i < metadata.length; i++, j += 4) {
    if (
      ((a & (mask[j] ?? 0)) ^ (base[j] ?? 0)) === 0 &&
      ((b & (mask[j + 1] ?? 0)) ^ (base[j + 1] ?? 0)) === 0 &&
      ((c & (mask[j + 2] ?? 0)) ^ (base[j + 2] ?? 0)) === 0 &&
      ((d & (mask[j + 3] ?? 0)) ^ (base[j + 3] ?? 0)) === 0 &&
      !metadata[i]
    ) {
      return i;
    }
  }
  return -1;
}

// One answer object per category: callers only read them, and a lookup then allocates nothing for them.
const reservedAnswers = new Map<string, { reserved: string }>();
function reserved(category: string): { reserved: string } {
  let answer = reservedAnswers.get(category);
  if (!answer) {
    answer = { reserved: category };
    reservedAnswers.set(category, answer);
  }
  return answer;
}

/**
 * What classifyParsed found, for callers that read the address's parse instead of its text: `v4` the
 * IPv4 value of the text (-1 when it is IPv6: its words are left in `ipv6Words`), `bare` whether the text
 * parsed as it is (no whitespace, bracket or zone id to drop), `embedded` the IPv4 address to look up for
 * CLASS_LOOKUP_V4. One shared record: read it before the next parse.
 */
export const parsedAddress = { v4: -1, bare: true, embedded: 0 };
/** classifyParsed: look up the text itself (its parse in parsedAddress / ipv6Words). */
export const CLASS_LOOKUP_TEXT = -1;
/** classifyParsed: look up the IPv4 address `parsedAddress.embedded` (an IPv6 form carrying it). */
export const CLASS_LOOKUP_V4 = -2;
/** classifyParsed's answers ≥ 0: the index of the special range's category in this list. */
export const reservedCategories: string[] = [];
const categoryIndex = new Map<string, number>();
function categoryOf(category: string): number {
  let index = categoryIndex.get(category);
  if (index === undefined) {
    index = reservedCategories.length;
    reservedCategories.push(category);
    categoryIndex.set(category, index);
  }
  return index;
}
const v4Codes = Int32Array.from(v4Table.category, categoryOf);
const v6Codes = Int32Array.from(v6Table.category, categoryOf);
const INVALID = categoryOf("invalid");
const ALWAYS_RESERVED = categoryOf("reserved");

/**
 * The guard's verdict, minus the metadata entries. `ip` is taken as checkAddress takes it (whitespace,
 * brackets and a zone id dropped); an address looked up as it is keeps the caller's exact text.
 */
export function classifyAddress(ip: string): AddressClass {
  const code = classifyParsed(ip);
  if (code >= 0) return reserved(reservedCategories[code] ?? "invalid");
  return { lookup: code === CLASS_LOOKUP_V4 ? formatIpv4(parsedAddress.embedded) : ip };
}

/**
 * classifyAddress without an allocation, parsing `ip` once: a reserved category's index (≥ 0, into
 * reservedCategories), CLASS_LOOKUP_TEXT or CLASS_LOOKUP_V4, the parse left in parsedAddress and ipv6Words.
 */
export function classifyParsed(ip: string): number {
  // Text that parses as it is has nothing to strip (no space, bracket or `%`): `ip` is the bare address.
  let bare = true;
  let v4 = parseIpv4(ip);
  if (v4 < 0 && !parseIpv6(ip)) {
    bare = false;
    const address = bareAddress(ip);
    v4 = parseIpv4(address);
    if (v4 < 0 && !parseIpv6(address)) {
      parsedAddress.v4 = -1;
      parsedAddress.bare = false;
      return INVALID;
    }
  }
  parsedAddress.v4 = v4;
  parsedAddress.bare = bare;
  if (v4 >= 0) {
    const hit = matchV4(v4, true);
    return hit >= 0 ? (v4Codes[hit] ?? INVALID) : CLASS_LOOKUP_TEXT;
  }
  const a = ipv6Words[0] ?? 0;
  const b = ipv6Words[1] ?? 0;
  const c = ipv6Words[2] ?? 0;
  const d = ipv6Words[3] ?? 0;
  // embeddedForms, in the guard's order; :: and ::1 are not IPv4-compatible (the guard's `v6 > 1n`).
  // Mapped, translated and NAT64 answer for their IPv4 address, but only when `ip` is already bare: the
  // guard's caller re-parsed the untrimmed text and looked up anything else as it was given.
  if (a === 0 && b === 0) {
    if (c === 0xffff || c === 0xffff0000) return embedded(d, -1, bare, false);
    if (c === 0 && d > 1) return embedded(d, -1, false, true);
  } else if (a === 0x0064ff9b && b === 0 && c === 0) {
    return embedded(d, -1, bare, false);
  } else if (a >>> 16 === 0x2002) {
    return embedded((((a & 0xffff) << 16) | (b >>> 16)) >>> 0, -1, false, false);
  } else if (a === 0x20010000) {
    // Teredo: server IPv4 in the second word, client IPv4 bit-inverted in the last.
    return embedded(b, ~d >>> 0, false, false);
  }
  const hit = matchV6();
  return hit >= 0 ? (v6Codes[hit] ?? INVALID) : CLASS_LOOKUP_TEXT;
}

/**
 * An IPv6 form carrying `first` (and for Teredo `second`, -1 otherwise). The first IPv4 address that hits
 * a guard range decides, metadata entries included (a metadata hit ends the search; the other address
 * is not looked at). `alwaysBlock` is the IPv4-compatible form, refused around any public address.
 */
function embedded(first: number, second: number, carries: boolean, alwaysBlock: boolean): number {
  let n = first;
  let hit = matchV4(n, false);
  if (hit < 0 && second >= 0) {
    n = second;
    hit = matchV4(n, false);
  }
  if (hit >= 0 && v4Table.metadata[hit]) {
    const real = matchV4(n, true);
    if (real >= 0) return v4Codes[real] ?? INVALID;
    parsedAddress.embedded = n;
    return carries ? CLASS_LOOKUP_V4 : CLASS_LOOKUP_TEXT;
  }
  if (hit >= 0) return v4Codes[hit] ?? INVALID;
  if (alwaysBlock) return ALWAYS_RESERVED;
  parsedAddress.embedded = first;
  return carries ? CLASS_LOOKUP_V4 : CLASS_LOOKUP_TEXT;
}

/** The guard's bareAddress after its trim: `[...]` and a `%zone` suffix dropped. */
function bareAddress(ip: string): string {
  let text = ip.trim();
  if (text.charCodeAt(0) === 91 && text.charCodeAt(text.length - 1) === 93) text = text.slice(1, -1);
  const zone = text.indexOf("%");
  return zone >= 0 ? text.slice(0, zone) : text;
}
