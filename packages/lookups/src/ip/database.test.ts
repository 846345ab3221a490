import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { Reader, type Response } from "maxmind";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { formatIpv4, formatIpv6 } from "./address.js";
import { type IpData, openIpData } from "./database.js";
import { packageFiles, realMmdb, realVersion, removeTempDirs, tempDir, xorshift } from "./testing-data.js";

afterAll(removeTempDirs);

// The real data, as installed: one compile into a fresh cache directory for this file.
let data: IpData;
beforeAll(async () => {
  data = await openIpData({ cacheDir: await tempDir("cache") });
}, 60_000);

describe("openIpData over the installed packages", () => {
  it("is versioned by the packages' ip-location-db build", () => {
    expect(data.version).toBe(realVersion);
    expect(data.version).toMatch(/^2\.3\.\d{10}$/);
    expect(data.files.mmdb.endsWith("geo-whois-asn-country.mmdb")).toBe(true);
    expect(data.counts.ipv4Ranges).toBeGreaterThan(100_000);
    expect(data.counts.ipv6Ranges).toBeGreaterThan(10_000);
  });

  it.each([
    ["8.8.8.8", "US", 15169, "Google LLC"],
    ["1.1.1.1", null, 13335, "Cloudflare, Inc."],
    ["2001:4860:4860::8888", "US", 15169, "Google LLC"],
    ["2606:4700:4700::1111", "US", 13335, "Cloudflare, Inc."],
  ])("%s → country %s, AS%s (%s)", (ip, country, asn, org) => {
    const hit = data.find(ip);
    if (country) expect(hit.country).toBe(country);
    else expect(hit.country).toMatch(/^[A-Z]{2}$/);
    expect(hit.asn).toBe(asn);
    expect(hit.org).toBe(org);
  });

  it("answers an IPv4-mapped address for its IPv4 address", () => {
    expect(data.find("::ffff:8.8.8.8")).toEqual(data.find("8.8.8.8"));
    expect(data.find("::ffff:808:808")).toEqual(data.find("8.8.8.8"));
  });

  it("throws a TypeError on text that is not an address", () => {
    expect(() => data.find("example.com")).toThrow(TypeError);
    expect(() => data.find("8.8.8.0/24")).toThrow(TypeError);
  });

  it("gives the same country as maxmind's own Reader.get for 40,000 random addresses", async () => {
    const reader = new Reader<Response>(await readFile(realMmdb));
    const next = xorshift(23);
    for (let i = 0; i < 40_000; i++) {
      const ip =
        i % 2 ? formatIpv4(next()) : formatIpv6([0x20000000 + (next() % 0x10000000), next(), next(), next()]);
      const expected = (reader.get(ip) as { country_code?: string } | null)?.country_code ?? null;
      if (data.find(ip).country !== expected)
        expect({ ip, country: data.find(ip).country }).toEqual({ ip, expected });
    }
  });

  it("gives each CSV row's AS number at its first, last and middle address", async () => {
    const check = async (file: string, family: 4 | 6) => {
      const lines = (await readFile(join(packageFiles.asnDir, file), "utf8")).split("\n").filter(Boolean);
      const toBig = (text: string) => {
        if (family === 4) return text.split(".").reduce((acc, p) => (acc << 8n) | BigInt(p), 0n);
        const [head = "", tail] = text.split("::");
        const h = head ? head.split(":") : [];
        const t = tail ? tail.split(":") : [];
        const groups = tail === undefined ? h : [...h, ...Array(8 - h.length - t.length).fill("0"), ...t];
        return groups.reduce((acc, g) => (acc << 16n) | BigInt(`0x${g}`), 0n);
      };
      const toText = (n: bigint) =>
        family === 4
          ? formatIpv4(Number(n))
          : formatIpv6([0, 1, 2, 3].map((w) => Number((n >> BigInt(96 - 32 * w)) & 0xffffffffn)));
      let checked = 0;
      for (let i = 0; i < lines.length; i += 97) {
        const [start = "", end = "", asn = ""] = (lines[i] ?? "").split(",");
        const [s, e] = [toBig(start), toBig(end)];
        // The one overlap in the data (see asn-compile.ts) gives part of a row to its neighbour.
        if (i > 0 && toBig((lines[i - 1] ?? "").split(",")[1] ?? "") >= s) continue;
        for (const n of [s, e, (s + e) / 2n])
          expect([toText(n), data.find(toText(n)).asn]).toEqual([toText(n), Number(asn)]);
        checked++;
      }
      expect(checked).toBeGreaterThan(lines.length / 100);
    };
    await check("asn-ipv4.csv", 4);
    await check("asn-ipv6.csv", 6);
  });
});
