import { isIP } from "node:net";
import { describe, expect, it } from "vitest";
import { canonicalIp, formatIpv4, formatIpv6, ipv6Words, parseIpv4, parseIpv6 } from "./address.js";
import { xorshift } from "./testing-data.js";

/** Reference: the eight groups of an IPv6 address, through WHATWG URL parsing (independent of ours). */
function urlHost(text: string): string {
  return new URL(`http://[${text}]/`).hostname.slice(1, -1);
}

const groupsOf = (words: ArrayLike<number>) =>
  Array.from({ length: 8 }, (_, g) => ((words[g >> 1] ?? 0) >>> (g % 2 ? 0 : 16)) & 0xffff);

describe("IPv4 parsing", () => {
  it("reads dotted quads as node:net does, and refuses what it refuses", () => {
    const next = xorshift(7);
    for (let i = 0; i < 2000; i++) {
      const n = next();
      expect(parseIpv4(formatIpv4(n))).toBe(n);
    }
    for (const bad of [
      "",
      "1.2.3",
      "1.2.3.4.5",
      "256.0.0.1",
      "01.2.3.4",
      "1.2.3.04",
      "1..2.3",
      "1.2.3.",
      ".1.2.3",
    ]) {
      expect(isIP(bad)).toBe(0);
      expect(parseIpv4(bad)).toBe(-1);
    }
    for (const bad of ["0x7f.0.0.1", "127.1", "1.2.3.4 ", "-1.2.3.4", "1.2.3.4a", "１.2.3.4"]) {
      expect(parseIpv4(bad)).toBe(-1);
    }
    expect(parseIpv4("0.0.0.0")).toBe(0);
    expect(parseIpv4("255.255.255.255")).toBe(0xffffffff);
  });
});

describe("IPv6 parsing and RFC 5952 text", () => {
  it("agrees with URL parsing on random addresses written full, compressed, upper-case, zero-padded, mixed", () => {
    const next = xorshift(11);
    for (let i = 0; i < 3000; i++) {
      // Runs of zero groups are common in real addresses: blank some groups out.
      const words = Array.from({ length: 4 }, () => (next() % 3 === 0 ? 0 : next()));
      if (i % 5 === 0) words[1] = 0;
      const groups = groupsOf(words);
      const forms = [
        groups.map((g) => g.toString(16)).join(":"),
        groups.map((g) => g.toString(16).padStart(4, "0").toUpperCase()).join(":"),
        `${groups
          .slice(0, 6)
          .map((g) => g.toString(16))
          .join(":")}:${formatIpv4(words[3] ?? 0)}`,
        urlHost(groups.map((g) => g.toString(16)).join(":")),
      ];
      for (const form of forms) {
        expect(parseIpv6(form), form).toBe(true);
        expect(groupsOf(ipv6Words), form).toEqual(groups);
      }
      const text = formatIpv6(words);
      const mapped = groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff;
      if (!mapped) expect(text).toBe(urlHost(text));
    }
  });

  it.each([
    ["2001:0db8:0000:0000:0000:0000:0000:0001", "2001:db8::1"],
    ["2001:db8:0:0:1:0:0:1", "2001:db8::1:0:0:1"],
    ["2001:db8:0:1:1:1:1:1", "2001:db8:0:1:1:1:1:1"],
    ["2001:0:0:1:0:0:0:1", "2001:0:0:1::1"],
    ["0:0:0:0:0:0:0:0", "::"],
    ["::0:1", "::1"],
    ["1:0:0:0:0:0:0:0", "1::"],
    ["::FFFF:808:808", "::ffff:8.8.8.8"],
    ["::ffff:8.8.8.8", "::ffff:8.8.8.8"],
    ["64:ff9b::8.8.8.8", "64:ff9b::808:808"],
    ["1:2:3:4:5:6:7::", "1:2:3:4:5:6:7:0"],
  ])("%s is written %s", (input, canonical) => {
    expect(parseIpv6(input)).toBe(true);
    expect(formatIpv6(ipv6Words)).toBe(canonical);
  });

  it("refuses what is not one IPv6 address", () => {
    const bad = [
      "",
      ":",
      ":::",
      "1::2::3",
      "1:2:3:4:5:6:7:8:9",
      "1:2:3:4:5:6:7",
      "1:2:3:4:5:6:7:8::",
      ":1:2:3:4:5:6:7",
      "1:2:3:4:5:6:7:",
      "12345::1",
      "gggg::1",
      "::1.2.3",
      "::1.2.3.4:5",
      "1:2:3:4:5:6:7:1.2.3.4",
      "::256.1.1.1",
      "fe80::1%eth0",
      "[::1]",
      " ::1",
    ];
    for (const text of bad) {
      // node:net accepts zone ids; a lookup does not (the zone names a link, not an address).
      if (!text.includes("%")) expect(isIP(text), text).toBe(0);
      expect(parseIpv6(text), text).toBe(false);
    }
  });
});

describe("canonicalIp (the input schema's rule)", () => {
  it.each([
    [" 8.8.8.8 ", "8.8.8.8"],
    ["[2001:4860:4860::8888]", "2001:4860:4860::8888"],
    ["2001:4860:4860:0:0:0:0:8888", "2001:4860:4860::8888"],
    ["\t2001:DB8::1\n", "2001:db8::1"],
  ])("%j → %s", (raw, ip) => {
    expect(canonicalIp(raw)).toMatchObject({ ok: true, ip });
  });

  it.each([
    ["8.8.8.0/24", /network/],
    ["2001:db8::/32", /network/],
    ["fe80::1%eth0", /zone/],
    ["example.com", /IPv4 or IPv6/],
    ["[8.8.8.8]", /IPv4 or IPv6/],
    ["127.1", /IPv4 or IPv6/],
    ["", /IPv4 or IPv6/],
  ])("%j is refused", (raw, problem) => {
    const result = canonicalIp(raw);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.problem).toMatch(problem);
  });
});
