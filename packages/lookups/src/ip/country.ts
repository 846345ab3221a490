import { Reader, type Response } from "maxmind";
import { formatIpv4 } from "./address.js";

/*
 * Country by address over ip-location-db's combined MMDB. maxmind's Reader opens and checks the file and
 * decodes the records; the search-tree walk is done here because Reader.get allocates on every call (an
 * octet array, split strings) and tops out near 0.9 M/s, below the lookup's budget. The file holds a few
 * hundred distinct records, so each is decoded once, by maxmind, and kept by its data pointer.
 */

/** What a country read needs: the walk over the tree, and the decoded records by pointer. */
export interface CountryReader {
  /** Country of the IPv4 address `ip` (unsigned 32-bit). */
  v4(ip: number): string | null;
  /** Country of the IPv6 address a:b:c:d (32-bit words, most significant first); `text` is its text. */
  v6(a: number, b: number, c: number, d: number, text: string): string | null;
  /** The node under each 16-bit prefix per family: pass them to another openCountryReader of the same bytes. */
  readonly tops: CountryTops;
}

export interface CountryTops {
  v4: Uint32Array;
  v6: Uint32Array;
}

const CODE = /^[A-Z]{2}$/;

/**
 * Opens the MMDB in `bytes`; throws when it is not a combined IPv4+IPv6 country file. `tops`, from a reader
 * of the same bytes (on another thread), spares the 2 × 65,536 walks of the first 16 bits.
 */
export function openCountryReader(bytes: Buffer, name: string, tops?: CountryTops): CountryReader {
  let reader: Reader<Response>;
  try {
    reader = new Reader(bytes, { cache: new Map() });
  } catch (error) {
    throw new Error(`${name} is not an MMDB file: ${(error as Error).message}`);
  }
  const { nodeCount, recordSize, ipVersion, searchTreeSize } = reader.metadata;
  // The IPv4-only file has no IPv6 tree: it would answer IPv6 addresses from the IPv4 space.
  if (ipVersion !== 6) throw new Error(`${name} covers IPv4 only; the combined IPv4+IPv6 file is needed`);
  if (recordSize !== 24 && recordSize !== 28 && recordSize !== 32) {
    throw new Error(`${name} has an unsupported record size ${recordSize}`);
  }
  if (searchTreeSize + 16 > bytes.length || nodeCount <= 0) throw new Error(`${name} is truncated`);
  const db = bytes;
  const nodeBytes = recordSize / 4;
  const child = (node: number, right: number): number => {
    const o = node * nodeBytes;
    if (recordSize === 24) {
      const p = o + 3 * right;
      return ((db[p] as number) << 16) | ((db[p + 1] as number) << 8) | (db[p + 2] as number);
    }
    if (recordSize === 28) {
      const middle = db[o + 3] as number;
      const high = right ? middle & 0x0f : middle >> 4;
      const p = o + 4 * right;
      return (
        high * 0x1000000 + (((db[p] as number) << 16) | ((db[p + 1] as number) << 8) | (db[p + 2] as number))
      );
    }
    const p = o + 4 * right;
    return (
      (db[p] as number) * 0x1000000 +
      (((db[p + 1] as number) << 16) | ((db[p + 2] as number) << 8) | (db[p + 3] as number))
    );
  };
  /** Follows `bits` bits of `word` (from its top) from `node`; the node reached, a pointer once ≥ nodeCount. */
  const walk = (node: number, word: number, bits: number): number => {
    for (let bit = bits - 1; bit >= 0 && node < nodeCount; bit--) node = child(node, (word >>> bit) & 1);
    return node;
  };
  // Half of every walk is done once here: the node under each 16-bit prefix (256 KiB per family).
  const top = (root: number) => Uint32Array.from({ length: 0x10000 }, (_, prefix) => walk(root, prefix, 16));
  const ipv4Root = () => {
    // The combined file keeps IPv4 in ::/96, the tree as MaxMind lays it out; 96 zero bits lead there.
    let node = 0;
    for (let i = 0; i < 3; i++) node = walk(node, 0, 32);
    return node;
  };
  const v4Top = tops?.v4 ?? top(ipv4Root());
  const v6Top = tops?.v6 ?? top(0);

  const decoded = new Map<number, string | null>();
  /** The record a pointer leads to, decoded by maxmind the first time (through the same address). */
  const resolve = (pointer: number, text: () => string): string | null => {
    if (pointer <= nodeCount) return null; // nodeCount itself means "no data"; below it the tree ran out
    const known = decoded.get(pointer);
    if (known !== undefined) return known;
    // ip-location-db's records are flat `{country_code}`, not MaxMind's nested country model.
    const code = (reader.get(text()) as { country_code?: unknown } | null)?.country_code;
    const country = typeof code === "string" && CODE.test(code) ? code : null;
    decoded.set(pointer, country);
    return country;
  };
  return {
    tops: { v4: v4Top, v6: v6Top },
    v4: (ip) => resolve(walk(v4Top[ip >>> 16] as number, ip, 16), () => formatIpv4(ip)),
    v6: (a, b, c, d, text) =>
      resolve(walk(walk(walk(walk(v6Top[a >>> 16] as number, a, 16), b, 32), c, 32), d, 32), () => text),
  };
}
