import { ipv6Words, parseIpv4, parseIpv6 } from "../ip/address.js";

/**
 * A set of addresses (a CIDR list, or single addresses such as the Tor exits) compiled into sorted,
 * disjoint, merged ranges in typed arrays: a membership test is one binary search, no BigInt and no
 * object per range. IPv6 rows are four big-endian 32-bit words (row i at [4i, 4i+4)), as in ip/asn-table.ts.
 */
export interface AddressSet {
  v4Start: Uint32Array;
  v4End: Uint32Array;
  v6Start: Uint32Array;
  v6End: Uint32Array;
  /** Lines read (before merging): what the source file holds, for counts and messages. */
  entries: number;
}

export interface ParseAddressListOptions {
  /** Names the text in error messages: a file path, or `tor_exits (replacement)`. */
  label: string;
  /** Networks (`a.b.c.d/n`) allowed; false = single addresses only (an exact-match list). */
  cidr: boolean;
}

/**
 * One entry per line; blank lines and `#` comments are skipped, a bare address is a /32 or /128. Throws an
 * Error naming the label and line on the first line that is not an entry (an HTML error page, a truncated
 * download), and when the text holds no entry at all: such text must never replace a working list.
 */
export function parseAddressList(text: string, options: ParseAddressListOptions): AddressSet {
  const v4: number[] = [];
  const v6: number[] = [];
  let lineNo = 0;
  for (const raw of text.split("\n")) {
    lineNo++;
    const hash = raw.indexOf("#");
    const line = (hash >= 0 ? raw.slice(0, hash) : raw).trim();
    if (line === "") continue;
    if (!addEntry(line, options.cidr, v4, v6)) {
      const shown = line.length > 60 ? `${line.slice(0, 60)}…` : line;
      const expected = options.cidr ? "an IP address or CIDR network" : "one IP address";
      throw new Error(`${options.label}:${lineNo}: expected ${expected}, found ${JSON.stringify(shown)}`);
    }
  }
  const entries = v4.length / 2 + v6.length / 8;
  if (entries === 0) throw new Error(`${options.label}: holds no addresses`);
  return { ...mergeV4(v4), ...mergeV6(v6), entries };
}

/** Parses one entry into `v4` (start, end) or `v6` (4 start words, 4 end words); false when it is none. */
function addEntry(line: string, cidr: boolean, v4: number[], v6: number[]): boolean {
  const slash = line.indexOf("/");
  if (slash >= 0 && !cidr) return false;
  const address = slash >= 0 ? line.slice(0, slash) : line;
  const lengthText = slash >= 0 ? line.slice(slash + 1) : null;
  const n = parseIpv4(address);
  if (n >= 0) {
    const length = prefixLength(lengthText, 32);
    if (length < 0) return false;
    const mask = length === 0 ? 0 : (0xffffffff << (32 - length)) >>> 0;
    const start = (n & mask) >>> 0;
    v4.push(start, (start | ~mask) >>> 0);
    return true;
  }
  if (!address.includes(":") || !parseIpv6(address)) return false;
  const length = prefixLength(lengthText, 128);
  if (length < 0) return false;
  const end: number[] = [];
  for (let w = 0; w < 4; w++) {
    const left = length - 32 * w;
    const mask = left >= 32 ? 0xffffffff : left <= 0 ? 0 : (0xffffffff << (32 - left)) >>> 0;
    const word = ipv6Words[w] as number;
    v6.push((word & mask) >>> 0);
    end.push((word | ~mask) >>> 0);
  }
  v6.push(...end);
  return true;
}

/** The prefix length after the slash (the full length without one), or -1 when it is not 0…max. */
function prefixLength(text: string | null, max: number): number {
  if (text === null) return max;
  if (!/^[0-9]{1,3}$/.test(text)) return -1;
  const n = Number(text);
  return n <= max ? n : -1;
}

function mergeV4(flat: number[]): { v4Start: Uint32Array; v4End: Uint32Array } {
  const rows = flat.length / 2;
  const order = Array.from({ length: rows }, (_, i) => i);
  order.sort((x, y) => (flat[2 * x] as number) - (flat[2 * y] as number));
  const starts: number[] = [];
  const ends: number[] = [];
  for (const i of order) {
    const start = flat[2 * i] as number;
    const end = flat[2 * i + 1] as number;
    const last = ends.length - 1;
    // Overlapping or adjacent to the previous range: extend it (plain numbers: end + 1 does not wrap).
    if (last >= 0 && start <= (ends[last] as number) + 1) {
      if (end > (ends[last] as number)) ends[last] = end;
    } else {
      starts.push(start);
      ends.push(end);
    }
  }
  return { v4Start: Uint32Array.from(starts), v4End: Uint32Array.from(ends) };
}

/** -1, 0, 1 as the four words at `i` of `a` compare with those at `j` of `b`. */
function compareRows(a: ArrayLike<number>, i: number, b: ArrayLike<number>, j: number): number {
  for (let w = 0; w < 4; w++) {
    const x = a[i + w] as number;
    const y = b[j + w] as number;
    if (x !== y) return x < y ? -1 : 1;
  }
  return 0;
}

/** The 128-bit value at `i` of `words` plus one, into `out` (wraps at the top, where nothing follows). */
function successor(words: ArrayLike<number>, i: number, out: number[]): void {
  let carry = 1;
  for (let w = 3; w >= 0; w--) {
    const sum = (words[i + w] as number) + carry;
    out[w] = sum >>> 0;
    carry = sum > 0xffffffff ? 1 : 0;
  }
}

function mergeV6(flat: number[]): { v6Start: Uint32Array; v6End: Uint32Array } {
  const rows = flat.length / 8;
  const order = Array.from({ length: rows }, (_, i) => i);
  order.sort((x, y) => compareRows(flat, 8 * x, flat, 8 * y));
  const starts: number[] = [];
  const ends: number[] = [];
  const next = [0, 0, 0, 0];
  for (const i of order) {
    const last = ends.length - 4;
    if (last >= 0) {
      successor(ends, last, next);
      const adjacent = compareRows(flat, 8 * i, next, 0) <= 0 || compareRows(ends, last, flat, 8 * i) >= 0;
      if (adjacent) {
        if (compareRows(flat, 8 * i + 4, ends, last) > 0) {
          for (let w = 0; w < 4; w++) ends[last + w] = flat[8 * i + 4 + w] as number;
        }
        continue;
      }
    }
    for (let w = 0; w < 4; w++) starts.push(flat[8 * i + w] as number);
    for (let w = 0; w < 4; w++) ends.push(flat[8 * i + 4 + w] as number);
  }
  return { v6Start: Uint32Array.from(starts), v6End: Uint32Array.from(ends) };
}

/** Whether the IPv4 address `n` (unsigned 32-bit) is in the set. */
export function hasV4(set: AddressSet, n: number): boolean {
  const starts = set.v4Start;
  let lo = 0;
  let hi = starts.length - 1;
  // The last range starting at or before n: the only one that can hold it, since ranges are disjoint.
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    if ((starts[mid] as number) <= n) lo = mid + 1;
    else hi = mid - 1;
  }
  return hi >= 0 && n <= (set.v4End[hi] as number);
}

/** -1, 0, 1 as the row `row` of `words` compares with the address a:b:c:d. */
function compareAt(words: Uint32Array, row: number, a: number, b: number, c: number, d: number): number {
  const k = row * 4;
  const w0 = words[k] as number;
  if (w0 !== a) return w0 < a ? -1 : 1;
  const w1 = words[k + 1] as number;
  if (w1 !== b) return w1 < b ? -1 : 1;
  const w2 = words[k + 2] as number;
  if (w2 !== c) return w2 < c ? -1 : 1;
  const w3 = words[k + 3] as number;
  return w3 === d ? 0 : w3 < d ? -1 : 1;
}

/** Whether the IPv6 address a:b:c:d (four 32-bit words, most significant first) is in the set. */
export function hasV6(set: AddressSet, a: number, b: number, c: number, d: number): boolean {
  let lo = 0;
  let hi = set.v6Start.length / 4 - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    if (compareAt(set.v6Start, mid, a, b, c, d) <= 0) lo = mid + 1;
    else hi = mid - 1;
  }
  return hi >= 0 && compareAt(set.v6End, hi, a, b, c, d) >= 0;
}

/** Ranges after merging, per family: what the set costs to search. */
export function rangeCount(set: AddressSet): { v4: number; v6: number } {
  return { v4: set.v4Start.length, v6: set.v6Start.length / 4 };
}

/** One set holding every address of `sets` (the IPv4 and IPv6 files of one dataset). */
export function unionSets(sets: readonly AddressSet[]): AddressSet {
  if (sets.length === 1 && sets[0]) return sets[0];
  const v4: number[] = [];
  const v6: number[] = [];
  let entries = 0;
  for (const set of sets) {
    entries += set.entries;
    for (let i = 0; i < set.v4Start.length; i++) v4.push(set.v4Start[i] as number, set.v4End[i] as number);
    for (let i = 0; i < set.v6Start.length; i += 4) {
      for (let w = 0; w < 4; w++) v6.push(set.v6Start[i + w] as number);
      for (let w = 0; w < 4; w++) v6.push(set.v6End[i + w] as number);
    }
  }
  return { ...mergeV4(v4), ...mergeV6(v6), entries };
}
