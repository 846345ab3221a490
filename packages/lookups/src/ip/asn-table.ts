/**
 * The AS numbers and organisations of every announced range, as sorted, disjoint ranges in typed arrays:
 * one binary search per lookup, no objects per range, and one flat byte layout that is the cache file.
 * IPv6 addresses are four big-endian 32-bit words each (row i at [4i, 4i+4)), compared without BigInt.
 */
export interface AsnTable {
  v4Start: Uint32Array;
  v4End: Uint32Array;
  v4Asn: Uint32Array;
  /** Index into `orgs`; 0 is "no name". */
  v4Org: Uint32Array;
  v6Start: Uint32Array;
  v6End: Uint32Array;
  v6Asn: Uint32Array;
  v6Org: Uint32Array;
  /** De-duplicated AS organisation names; entry 0 is null. */
  orgs: OrgNames;
  /** Per family, how many rows start below each 16-bit prefix (see withBuckets); not stored on disk. */
  v4Buckets: Uint32Array;
  v6Buckets: Uint32Array;
}

/** The organisation names by index: entry 0 is "no name" (null), out of range is null too. */
export interface OrgNames {
  readonly count: number;
  get(index: number): string | null;
}

export function orgNamesOf(names: readonly (string | null)[]): OrgNames {
  return { count: names.length, get: (i) => names[i] ?? null };
}

/**
 * The names inside a cache file, each decoded on first use: a table handed over from a worker thread is
 * ready without decoding ~100k strings on the event loop, and a lookup decodes only the name it returns.
 */
function lazyOrgNames(buf: Buffer, offsets: Uint32Array, at: number): OrgNames {
  const count = offsets.length - 1;
  // Decoded names in blocks of 1,024 made on first use: one array of `count` (650 KB) took the event loop
  // milliseconds to allocate at the swap, and a Map made every lookup slower.
  const blocks: (string | undefined)[][] = [];
  return {
    count,
    get(i) {
      if (!(i > 0 && i < count)) return null;
      let block = blocks[i >>> 10];
      if (block === undefined) {
        block = new Array<string | undefined>(1024);
        blocks[i >>> 10] = block;
      }
      let name = block[i & 1023];
      if (name === undefined) {
        name = buf.toString("utf8", at + (offsets[i] as number), at + (offsets[i + 1] as number));
        block[i & 1023] = name;
      }
      return name;
    },
  };
}

/**
 * Adds the first search step, done once: bucket k counts the rows starting before prefix k (the top 16
 * bits of the address), so a search starts among the few rows of its own prefix instead of all 400,000,
 * which halves a lookup's cache misses.
 */
export function withBuckets(table: Omit<AsnTable, "v4Buckets" | "v6Buckets">): AsnTable {
  const count = (rows: number, prefixOf: (row: number) => number) => {
    const buckets = new Uint32Array(0x10001);
    let row = 0;
    for (let k = 0; k <= 0x10000; k++) {
      while (row < rows && prefixOf(row) < k) row++;
      buckets[k] = row;
    }
    return buckets;
  };
  return {
    ...table,
    v4Buckets: count(table.v4Asn.length, (row) => (table.v4Start[row] as number) >>> 16),
    v6Buckets: count(table.v6Asn.length, (row) => (table.v6Start[4 * row] as number) >>> 16),
  };
}

/** The row whose range holds `ip`, or -1. */
export function findV4Row(table: AsnTable, ip: number): number {
  const starts = table.v4Start;
  const prefix = ip >>> 16;
  let lo = table.v4Buckets[prefix] as number;
  let hi = (table.v4Buckets[prefix + 1] as number) - 1;
  // The last row starting at or before ip: the only one that can hold it, since rows are disjoint. Below
  // the bucket's first row (hi = lo - 1) it is the previous prefix's last row, which may reach into this one.
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    if ((starts[mid] as number) <= ip) lo = mid + 1;
    else hi = mid - 1;
  }
  return hi >= 0 && ip <= (table.v4End[hi] as number) ? hi : -1;
}

/** -1, 0, 1 as the 4-word address at `row` of `words` compares with a, b, c, d. */
function compare(words: Uint32Array, row: number, a: number, b: number, c: number, d: number): number {
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

/** The row whose range holds the address a:b:c:d (four 32-bit words, most significant first), or -1. */
export function findV6Row(table: AsnTable, a: number, b: number, c: number, d: number): number {
  const prefix = a >>> 16;
  let lo = table.v6Buckets[prefix] as number;
  let hi = (table.v6Buckets[prefix + 1] as number) - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    if (compare(table.v6Start, mid, a, b, c, d) <= 0) lo = mid + 1;
    else hi = mid - 1;
  }
  return hi >= 0 && compare(table.v6End, hi, a, b, c, d) >= 0 ? hi : -1;
}

/*
 * Cache file layout, all integers in the host's byte order (the file is a cache for this machine, and a
 * byte-order mark refuses one copied from another):
 *   magic "VNTGASN\0" | u32 BOM 0x01020304 | u32 format | u32 n4 | u32 n6 | u32 nOrgs | u32 orgBytes
 *   | u32 metaBytes | meta (UTF-8 JSON, padded to 4) | v4Start v4End v4Asn v4Org (n4 each)
 *   | v6Start v6End (4·n6 each) v6Asn v6Org (n6 each) | orgOffsets (nOrgs+1) | org names (UTF-8)
 */
const MAGIC = Buffer.from("VNTGASN\0", "latin1");
const BOM = 0x01020304;
const HEADER_WORDS = 7;
/** Bump when the layout or the compile rules change: old cache files are then ignored. */
export const ASN_FORMAT_VERSION = 1;

const pad4 = (n: number) => (n + 3) & ~3;

/** The table and what it was built from, as one buffer ready to write. */
export function encodeAsnTable(table: AsnTable, meta: Record<string, string>): Buffer {
  const names = Array.from({ length: table.orgs.count }, (_, i) =>
    Buffer.from(table.orgs.get(i) ?? "", "utf8"),
  );
  const offsets = new Uint32Array(names.length + 1);
  for (const [i, name] of names.entries()) offsets[i + 1] = (offsets[i] as number) + name.length;
  const metaBytes = Buffer.from(JSON.stringify(meta), "utf8");
  const header = new Uint32Array([
    BOM,
    ASN_FORMAT_VERSION,
    table.v4Asn.length,
    table.v6Asn.length,
    names.length,
    offsets[names.length] as number,
    metaBytes.length,
  ]);
  const arrays = [
    table.v4Start,
    table.v4End,
    table.v4Asn,
    table.v4Org,
    table.v6Start,
    table.v6End,
    table.v6Asn,
    table.v6Org,
    offsets,
  ];
  return Buffer.concat([
    MAGIC,
    u8(header),
    metaBytes,
    Buffer.alloc(pad4(metaBytes.length) - metaBytes.length),
    ...arrays.map(u8),
    ...names,
  ]);
}

const u8 = (a: Uint32Array) => Buffer.from(a.buffer, a.byteOffset, a.byteLength);

/** The first search step of a decoded table, handed over with its bytes so the receiver need not redo it. */
export interface AsnBuckets {
  v4Buckets: Uint32Array;
  v6Buckets: Uint32Array;
}

/**
 * Reads a cache file back, checking everything a search relies on (sizes, order, indexes in bounds), so a
 * truncated or foreign file is refused (and recompiled) rather than answering wrongly. Throws when bad.
 * With `checked` (the buckets of a decode of these very bytes, done on another thread), the checks and the
 * buckets are not done again: the table is views over `file`, ready in constant time.
 */
export function decodeAsnTable(
  file: Buffer,
  checked?: AsnBuckets,
): { table: AsnTable; meta: Record<string, string> } {
  // Typed arrays need 4-byte alignment: copy into a fresh buffer unless the read one already is aligned.
  const buf = file.byteOffset % 4 === 0 ? file : Buffer.from(new Uint8Array(file).buffer);
  const fail = (why: string): never => {
    throw new Error(`bad ASN cache file: ${why}`);
  };
  if (buf.length < MAGIC.length + HEADER_WORDS * 4 || !buf.subarray(0, MAGIC.length).equals(MAGIC)) {
    fail("not a cache file");
  }
  const words = (at: number, count: number) => new Uint32Array(buf.buffer, buf.byteOffset + at, count);
  const [bom, format, n4 = 0, n6 = 0, nOrgs = 0, orgBytes = 0, metaLength = 0] = words(
    MAGIC.length,
    HEADER_WORDS,
  );
  if (bom !== BOM) fail("written on a machine of the other byte order");
  if (format !== ASN_FORMAT_VERSION) fail(`format ${format}, expected ${ASN_FORMAT_VERSION}`);
  let at = MAGIC.length + HEADER_WORDS * 4;
  const meta: unknown = JSON.parse(buf.toString("utf8", at, at + metaLength));
  if (typeof meta !== "object" || meta === null) fail("no metadata");
  at += pad4(metaLength);
  const expected = at + 4 * (4 * n4 + 10 * n6 + nOrgs + 1) + orgBytes;
  if (buf.length !== expected) fail(`${buf.length} bytes, expected ${expected}`);
  const take = (count: number) => {
    const view = words(at, count);
    at += 4 * count;
    return view;
  };
  const table: Omit<AsnTable, "orgs" | "v4Buckets" | "v6Buckets"> = {
    v4Start: take(n4),
    v4End: take(n4),
    v4Asn: take(n4),
    v4Org: take(n4),
    v6Start: take(4 * n6),
    v6End: take(4 * n6),
    v6Asn: take(n6),
    v6Org: take(n6),
  };
  const offsets = take(nOrgs + 1);
  const orgs = lazyOrgNames(buf, offsets, at);
  if (checked) return { table: { ...table, orgs, ...checked }, meta: meta as Record<string, string> };
  if (offsets[0] !== 0) fail("org name offsets out of bounds");
  for (let i = 0; i < nOrgs; i++) {
    const from = offsets[i] as number;
    const to = offsets[i + 1] as number;
    if (to < from || to > orgBytes) fail("org name offsets out of bounds");
  }
  checkOrder(table, nOrgs, fail);
  return { table: withBuckets({ ...table, orgs }), meta: meta as Record<string, string> };
}

/** Rows sorted, disjoint, each start ≤ end, org indexes in range. */
export function checkOrder(
  table: Omit<AsnTable, "orgs" | "v4Buckets" | "v6Buckets">,
  nOrgs: number,
  fail: (why: string) => never,
): void {
  const { v4Start, v4End, v4Org, v6Start, v6End, v6Org } = table;
  for (let i = 0; i < v4Org.length; i++) {
    if ((v4Start[i] as number) > (v4End[i] as number)) fail(`IPv4 row ${i} ends before it starts`);
    if (i > 0 && (v4Start[i] as number) <= (v4End[i - 1] as number)) fail(`IPv4 row ${i} overlaps`);
    if ((v4Org[i] as number) >= nOrgs) fail(`IPv4 row ${i} names an unknown org`);
  }
  for (let i = 0; i < v6Org.length; i++) {
    // Indexed reads, not a subarray per row: a view per row was most of a start's 84 ms here.
    const k = 4 * i;
    const a = v6Start[k] as number;
    const b = v6Start[k + 1] as number;
    const c = v6Start[k + 2] as number;
    const d = v6Start[k + 3] as number;
    if (compare(v6End, i, a, b, c, d) < 0) fail(`IPv6 row ${i} ends before it starts`);
    if (i > 0 && compare(v6End, i - 1, a, b, c, d) >= 0) fail(`IPv6 row ${i} overlaps`);
    if ((v6Org[i] as number) >= nOrgs) fail(`IPv6 row ${i} names an unknown org`);
  }
}
