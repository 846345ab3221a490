import { describe, expect, it } from "vitest";
import { formatIpv4, formatIpv6, ipToBigInt, ipv6Words, parseIpv4, parseIpv6 } from "../ip/address.js";
import { xorshift } from "../ip/testing-data.js";
import { hasV4, hasV6, parseAddressList, rangeCount, unionSets } from "./address-set.js";
import { parseAsnList } from "./asn-list.js";

const cidrs = (text: string) => parseAddressList(text, { label: "test", cidr: true });

const inV6 = (set: ReturnType<typeof cidrs>, ip: string) => {
  if (!parseIpv6(ip)) throw new Error(ip);
  const [a = 0, b = 0, c = 0, d = 0] = ipv6Words;
  return hasV6(set, a, b, c, d);
};

describe("parseAddressList", () => {
  it("holds each network's first and last address and nothing just outside", () => {
    const set = cidrs("10.1.0.0/16\n# a comment\n\n  192.0.2.128/25  # trailing comment\n8.8.8.8\r\n");
    for (const [ip, inside] of [
      ["10.0.255.255", false],
      ["10.1.0.0", true],
      ["10.1.255.255", true],
      ["10.2.0.0", false],
      ["192.0.2.127", false],
      ["192.0.2.128", true],
      ["192.0.2.255", true],
      ["8.8.8.8", true],
      ["8.8.8.9", false],
    ] as const) {
      expect([ip, hasV4(set, parseIpv4(ip))]).toEqual([ip, inside]);
    }
    expect(set.entries).toBe(3);
  });

  it("masks host bits, as `ip route` does with 10.1.2.3/16", () => {
    const set = cidrs("10.1.2.3/16");
    expect(hasV4(set, parseIpv4("10.1.0.0"))).toBe(true);
    expect(hasV4(set, parseIpv4("10.1.255.255"))).toBe(true);
  });

  it("merges overlapping and adjacent networks into one range", () => {
    const set = cidrs("10.0.0.0/24\n10.0.1.0/24\n10.0.0.128/25\n10.0.3.0/24\n0.0.0.0/0\n");
    expect(rangeCount(set).v4).toBe(1);
    const v6 = cidrs("2001:db8::/33\n2001:db8:8000::/33\n2001:db8::1\n::/0");
    expect(rangeCount(v6).v6).toBe(1);
    expect(inV6(v6, "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff")).toBe(true);
    const two = cidrs("2001:db8::/32\n2001:db9::/32\n2001:dbb::/32");
    expect(rangeCount(two).v6).toBe(2);
  });

  it("answers IPv6 at the boundaries, across word borders", () => {
    const set = cidrs("2001:db8:0:1::/64\n2a00:1450:4000::/37\n2001:4860:4860::8888");
    for (const [ip, inside] of [
      ["2001:db8:0:0:ffff:ffff:ffff:ffff", false],
      ["2001:db8:0:1::", true],
      ["2001:db8:0:1:ffff:ffff:ffff:ffff", true],
      ["2001:db8:0:2::", false],
      ["2a00:1450:4000::", true],
      ["2a00:1450:47ff:ffff:ffff:ffff:ffff:ffff", true],
      ["2a00:1450:4800::", false],
      ["2001:4860:4860::8888", true],
      ["2001:4860:4860::8889", false],
    ] as const) {
      expect([ip, inV6(set, ip)]).toEqual([ip, inside]);
    }
  });

  it("agrees with BigInt prefix arithmetic on random networks and addresses", () => {
    const next = xorshift(7);
    const nets: { base: bigint; last: bigint; text: string; v6: boolean }[] = [];
    for (let i = 0; i < 300; i++) {
      const v6 = i % 2 === 1;
      const length = v6 ? 16 + (next() % 113) : 8 + (next() % 25);
      const text = v6
        ? `${formatIpv6([0x20000000 | (next() % 0x100), next() % 4, next(), next()])}/${length}`
        : `${formatIpv4(((next() % 8) << 24) | (next() & 0xffffff))}/${length}`;
      const bits = v6 ? 128 : 32;
      const value = ipToBigInt(text.split("/")[0] ?? "") ?? 0n;
      const size = 1n << BigInt(bits - length);
      const base = value - (value % size);
      nets.push({ base, last: base + size - 1n, text, v6 });
    }
    const set = cidrs(nets.map((n) => n.text).join("\n"));
    const probe = (ip: string, v6: boolean) => {
      const value = ipToBigInt(ip) ?? -1n;
      const expected = nets.some((n) => n.v6 === v6 && n.base <= value && value <= n.last);
      const got = v6 ? inV6(set, ip) : hasV4(set, parseIpv4(ip));
      if (got !== expected) expect({ ip, got }).toEqual({ ip, got: expected });
    };
    for (const n of nets) {
      const fmt = (v: bigint) =>
        n.v6
          ? formatIpv6([0, 1, 2, 3].map((w) => Number((v >> BigInt(96 - 32 * w)) & 0xffffffffn)))
          : formatIpv4(Number(v));
      const max = n.v6 ? (1n << 128n) - 1n : (1n << 32n) - 1n;
      for (const v of [n.base - 1n, n.base, n.last, n.last + 1n])
        if (v >= 0n && v <= max) probe(fmt(v), n.v6);
    }
    for (let i = 0; i < 5000; i++) {
      probe(formatIpv4(((next() % 8) << 24) | (next() & 0xffffff)), false);
      probe(formatIpv6([0x20000000 | (next() % 0x100), next() % 4, next(), next()]), true);
    }
  });

  it("refuses a line that is not an entry, naming the label and line", () => {
    expect(() => cidrs("10.0.0.0/8\n<html>")).toThrow(
      'test:2: expected an IP address or CIDR network, found "<html>"',
    );
    expect(() => cidrs("10.0.0.0/33")).toThrow("test:1:");
    expect(() => cidrs("10.0.0.0/")).toThrow("test:1:");
    expect(() => cidrs("2001:db8::/129")).toThrow("test:1:");
    expect(() => cidrs("example.com")).toThrow("test:1:");
    expect(() => parseAddressList("10.0.0.0/8", { label: "tor", cidr: false })).toThrow(
      'tor:1: expected one IP address, found "10.0.0.0/8"',
    );
  });

  it("refuses text without entries", () => {
    expect(() => cidrs("")).toThrow("test: holds no addresses");
    expect(() => cidrs("# only a comment\n\n")).toThrow("holds no addresses");
  });

  it("unionSets joins an IPv4 and an IPv6 file", () => {
    const set = unionSets([cidrs("10.0.0.0/8"), cidrs("2001:db8::/32"), cidrs("11.0.0.0/8")]);
    expect(set.entries).toBe(3);
    expect(rangeCount(set)).toEqual({ v4: 1, v6: 1 });
    expect(inV6(set, "2001:db8::1")).toBe(true);
  });
});

describe("parseAsnList", () => {
  it("reads X4BNet's format: comments as names, links and bare entries without one", () => {
    const list = parseAsnList(
      "AS14061 # DIGITALOCEAN-ASN - Digital Ocean, Inc., US\nAS55286\t# SERVER-MANIA, CA\n# comment\n\nAS64601 # https://github.com/X4BNet/lists_vpn/issues/1\n64602\nAS14061 # later duplicate\n",
      "asn",
    );
    expect([...list]).toEqual([
      [14061, "DIGITALOCEAN-ASN - Digital Ocean, Inc., US"],
      [55286, "SERVER-MANIA, CA"],
      [64601, null],
      [64602, null],
    ]);
  });

  it("refuses what is not an AS number, and text without any", () => {
    expect(() => parseAsnList("AS1\nASX # x", "asn")).toThrow(
      'asn:2: expected an AS number (AS123), found "ASX"',
    );
    expect(() => parseAsnList("AS0", "asn")).toThrow("asn:1:");
    expect(() => parseAsnList("AS99999999999", "asn")).toThrow("asn:1:");
    expect(() => parseAsnList("\n# nothing\n", "asn")).toThrow("asn: holds no AS numbers");
  });
});
