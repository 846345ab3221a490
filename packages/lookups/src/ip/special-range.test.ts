import {
  type BlockedRange,
  blockedIpv4Ranges,
  blockedIpv6Ranges,
  checkAddress,
} from "@vantage/probes/target-guard";
import { describe, expect, it } from "vitest";
import { formatIpv4, formatIpv6, ipv6Words, parseIpv4, parseIpv6 } from "./address.js";
import { type AddressClass, classifyAddress } from "./special-range.js";
import { xorshift } from "./testing-data.js";

/*
 * The oracle: classifyAddress as it was, on the target guard's checkAddress (BigInt, one verdict object a
 * call). The number-only rewrite must answer exactly as it does, for canonical and odd text alike.
 */
function oracle(ip: string): AddressClass {
  const verdict = checkAddress(ip);
  if (verdict.category === "metadata") {
    const inner = verdict.embedded_ipv4 ?? verdict.address;
    const category = oracleNonMetadata(inner);
    if (category) return { reserved: category };
    return { lookup: verdict.embedded_ipv4 && oracleCarries(ip) ? verdict.embedded_ipv4 : ip };
  }
  if (verdict.blocked) return { reserved: verdict.category ?? "reserved" };
  return { lookup: oracleCarries(ip) && verdict.embedded_ipv4 ? verdict.embedded_ipv4 : ip };
}

function oracleCarries(ip: string): boolean {
  if (!ip.includes(":") || !parseIpv6(ip)) return false;
  const [a, b, c] = ipv6Words;
  if (a === 0 && b === 0) return c === 0xffff || c === 0xffff0000;
  return a === 0x0064ff9b && b === 0 && c === 0;
}

// The old file's compiled prefixes and matcher, verbatim but for the names.
interface OraclePrefix {
  words: number[];
  bits: number;
  category: string;
}

const oracleCompile = (ranges: readonly BlockedRange[]): OraclePrefix[] =>
  ranges
    .filter((r) => r.category !== "metadata")
    .map((r) => {
      const [base = "", bits = ""] = r.cidr.split("/");
      const v4 = parseIpv4(base);
      if (v4 >= 0) return { words: [v4], bits: Number(bits), category: r.category };
      if (!parseIpv6(base)) throw new Error(`bad range ${r.cidr}`);
      return { words: [...ipv6Words], bits: Number(bits), category: r.category };
    });
const oracleV4 = oracleCompile(blockedIpv4Ranges);
const oracleV6 = oracleCompile(blockedIpv6Ranges);

function oracleNonMetadata(address: string): string | null {
  const v4 = parseIpv4(address);
  const words = v4 >= 0 ? [v4] : parseIpv6(address) ? [...ipv6Words] : null;
  if (!words) return null;
  const prefixes = v4 >= 0 ? oracleV4 : oracleV6;
  return prefixes.find((p) => oracleInPrefix(words, p))?.category ?? null;
}

function oracleInPrefix(words: number[], prefix: OraclePrefix): boolean {
  for (let w = 0, left = prefix.bits; left > 0; w++, left -= 32) {
    const mask = left >= 32 ? 0xffffffff : ~(0xffffffff >>> left) >>> 0;
    if ((((words[w] ?? 0) ^ (prefix.words[w] ?? 0)) & mask) !== 0) return false;
  }
  return true;
}

// ---- address arithmetic for building inputs (BigInt is fine here: only the code under test must avoid it)

const MAX6 = (1n << 128n) - 1n;

function wordsToBig(words: ArrayLike<number>): bigint {
  let v = 0n;
  for (let w = 0; w < 4; w++) v = (v << 32n) | BigInt(words[w] ?? 0);
  return v;
}

function bigToWords(v: bigint): number[] {
  return [96n, 64n, 32n, 0n].map((s) => Number((v >> s) & 0xffffffffn));
}

/** First and last address of a guard range, as numbers of `bits` bits. */
function bounds(range: BlockedRange, bits: number): [bigint, bigint] {
  const [text = "", length = ""] = range.cidr.split("/");
  const base = bits === 32 ? BigInt(parseIpv4(text)) : parseIpv6(text) ? wordsToBig(ipv6Words) : -1n;
  const host = (1n << BigInt(bits - Number(length))) - 1n;
  return [base & ~host, base | host];
}

/** first - 1, first, first + 1, last - 1, last, last + 1, inside 0..max. */
function around([first, last]: [bigint, bigint], max: bigint): bigint[] {
  return [first - 1n, first, first + 1n, last - 1n, last, last + 1n].filter((v) => v >= 0n && v <= max);
}

/** Ways to write one IPv6 address that checkAddress and classifyAddress must both read alike. */
function spellings(v: bigint): string[] {
  const words = bigToWords(v);
  const canonical = formatIpv6(words);
  const groups = words.flatMap((w) => [(w >>> 16).toString(16), (w & 0xffff).toString(16)]);
  return [
    canonical,
    groups.join(":"),
    `${groups.slice(0, 6).join(":")}:${formatIpv4(words[3] ?? 0)}`,
    canonical.toUpperCase(),
    ` ${canonical}\t`,
    `[${canonical}]`,
    `${canonical}%eth0`,
  ];
}

const v4Spellings = (n: number): string[] => {
  const text = formatIpv4(n);
  return [text, ` ${text} `, `[${text}]`, `${text}%1`];
};

/** IPv6 addresses carrying `n` in every embedded form the guard unpacks (Teredo in both places). */
function embeddings(n: number, other: number): bigint[] {
  const v = BigInt(n >>> 0);
  const o = BigInt(other >>> 0);
  return [
    (0xffffn << 32n) | v, // ::ffff:0:0/96, IPv4-mapped
    (0xffff0000n << 32n) | v, // ::ffff:0:0:0/96, IPv4-translated
    v, // ::/96, IPv4-compatible
    (0x0064ff9bn << 96n) | v, // 64:ff9b::/96, NAT64
    (0x2002n << 112n) | (v << 80n) | (o & 0xffffn), // 2002::/16, 6to4
    (0x20010000n << 96n) | (v << 64n) | (~o & 0xffffffffn), // Teredo server n, client other
    (0x20010000n << 96n) | (o << 64n) | (~v & 0xffffffffn), // Teredo server other, client n
  ];
}

/** Every input on which the two disagree, as `[input, new, old]` (the first few, to keep reports short). */
function mismatches(inputs: Iterable<string>): unknown[] {
  const out: unknown[] = [];
  for (const ip of inputs) {
    const now = classifyAddress(ip);
    const was = oracle(ip);
    if (JSON.stringify(now) !== JSON.stringify(was) && out.length < 20) out.push([ip, now, was]);
  }
  return out;
}

const v4Bounds = blockedIpv4Ranges.flatMap((r) => around(bounds(r, 32), 0xffffffffn)).map(Number);
const metadataV4 = blockedIpv4Ranges.filter((r) => r.category === "metadata").map((r) => bounds(r, 32)[0]);
const embeddedPrefixes = [
  "::ffff:0:0/96",
  "::ffff:0:0:0/96",
  "::/96",
  "64:ff9b::/96",
  "2002::/16",
  "2001::/32",
];

describe("classifyAddress agrees with the target guard's checkAddress", () => {
  it("on every range boundary (first, last, ±1), written every way, and embedded in every IPv6 form", () => {
    const inputs: string[] = [];
    for (const n of v4Bounds) {
      inputs.push(...v4Spellings(n));
      for (const other of [0x08080808, 0x0a000001, 0xa93f8110]) {
        for (const v of embeddings(n, other)) inputs.push(...spellings(v));
      }
    }
    const v6Ranges = [...blockedIpv6Ranges, ...embeddedPrefixes.map((cidr) => ({ cidr, category: "x" }))];
    for (const r of v6Ranges as BlockedRange[]) {
      for (const v of around(bounds(r, 128), MAX6)) inputs.push(...spellings(v));
    }
    expect(inputs.length).toBeGreaterThan(5000);
    expect(mismatches(inputs)).toEqual([]);
  });

  it("on 50,000 random IPv4 and IPv6 addresses, many inside the embedded-IPv4 prefixes", () => {
    const next = xorshift(20260617);
    const innerV4 = () => (next() % 2 ? next() : (v4Bounds[next() % v4Bounds.length] ?? 0));
    const inputs: string[] = [];
    const seen = new Map<string, number>();
    for (let i = 0; i < 50_000; i++) {
      const kind = i % 5;
      let text: string;
      if (kind === 0) text = formatIpv4(next());
      else if (kind === 1) text = formatIpv6([next(), next(), next(), next()]);
      else if (kind === 2) {
        // Small first words land in ::/8, 64:ff9b:1::/48 and the other low ranges.
        const words = [next() % 4 === 0 ? next() & 0x00ffffff : next() & 0x2fffffff, next(), next(), next()];
        if (next() % 3 === 0) words[1] = 0;
        if (next() % 3 === 0) words[2] = 0;
        text = formatIpv6(words);
      } else {
        const forms = embeddings(innerV4(), innerV4());
        text = formatIpv6(bigToWords(forms[next() % forms.length] ?? 0n));
      }
      inputs.push(text);
      const answer = classifyAddress(text);
      const key = "reserved" in answer ? answer.reserved : answer.lookup === text ? "as is" : "embedded";
      seen.set(key, (seen.get(key) ?? 0) + 1);
    }
    expect(mismatches(inputs)).toEqual([]);
    // The set reaches every outcome: looked up as is, for an embedded IPv4 address, and many categories.
    expect(seen.get("as is")).toBeGreaterThan(1000);
    expect(seen.get("embedded")).toBeGreaterThan(1000);
    expect(seen.get("reserved")).toBeGreaterThan(100);
    expect(seen.size).toBeGreaterThan(12);
  });

  it("on the metadata addresses, bare and embedded, Teredo pairing them with public and private ends", () => {
    const inputs: string[] = ["fd00:ec2::254", "fd00:ec2::253", "fd00:ec2::255", "FD00:EC2:0::254"];
    for (const m of metadataV4) {
      const n = Number(m);
      inputs.push(...v4Spellings(n));
      for (const other of [0x08080808, 0x0a000001, 0x7f000001, 0xc0000201, n]) {
        for (const v of embeddings(n, other)) inputs.push(...spellings(v));
      }
    }
    expect(mismatches(inputs)).toEqual([]);
    // The cases the metadata rule exists for, spelled out.
    expect(classifyAddress("168.63.129.16")).toEqual({ lookup: "168.63.129.16" });
    expect(classifyAddress("::ffff:168.63.129.16")).toEqual({ lookup: "168.63.129.16" });
    expect(classifyAddress("::168.63.129.16")).toEqual({ lookup: "::168.63.129.16" });
    expect(classifyAddress("169.254.169.254")).toEqual({ reserved: "link_local" });
    expect(classifyAddress("100.100.100.200")).toEqual({ reserved: "cgnat" });
    expect(classifyAddress("fd00:ec2::254")).toEqual({ reserved: "private" });
  });

  it("on text that is not an address, or is one only once trimmed", () => {
    const next = xorshift(99);
    const alphabet = "0123456789abcdefABCDEF:.%[] \t";
    const inputs = ["", " ", "[]", "[", "]", "%", "::", "::1", "[::1", "::1]", "1.2.3.4/32", "localhost"];
    for (let i = 0; i < 20_000; i++) {
      let text = "";
      for (let k = next() % 16; k > 0; k--) text += alphabet[next() % alphabet.length];
      inputs.push(text);
    }
    // Near misses: valid spellings with one character replaced, inserted or dropped.
    const valid = v4Bounds.flatMap((n) => [formatIpv4(n), ...embeddings(n, n).flatMap(spellings)]);
    for (let i = 0; i < 20_000; i++) {
      const text = valid[next() % valid.length] ?? "";
      const at = next() % (text.length + 1);
      const c = alphabet[next() % alphabet.length] ?? "";
      const cut = next() % 3;
      inputs.push(text.slice(0, at) + (cut === 2 ? "" : c) + text.slice(at + (cut === 1 ? 0 : 1)));
    }
    expect(mismatches(inputs)).toEqual([]);
  });
});
