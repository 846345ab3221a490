import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadRdapBootstrap, rdapBaseForDomain, rdapBaseForIp, toBigInt } from "./bootstrap.js";
import { testBootstrap } from "./testing/servers.js";

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function dirWith(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), "rdap-bootstrap-"));
  dirs.push(dir);
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

const valid = JSON.stringify({ version: "1.0", publication: "2026-01-01T00:00:00Z", services: [] });

describe("loadRdapBootstrap", () => {
  it("reads the shipped snapshot by default: IANA's files with their publication dates", () => {
    const b = loadRdapBootstrap();
    expect(b.dns.publication).toBe("2026-07-23T02:00:03Z");
    expect(b.ipv4.publication).toBe("2019-06-07T19:00:02Z");
    expect(rdapBaseForDomain(b, "example.com")).toBe("https://rdap.verisign.com/com/v1/");
    expect(rdapBaseForIp(b, "193.0.6.139")).toBe("https://rdap.db.ripe.net/");
    // Unique local addresses belong to no registry.
    expect(rdapBaseForIp(b, "fd00::1")).toBeUndefined();
    expect(rdapBaseForIp(b, "2001:4860::1")).toBe("https://rdap.arin.net/registry/");
  });

  it("reads a directory of the four files", () => {
    const dir = dirWith({ "dns.json": valid, "ipv4.json": valid, "ipv6.json": valid, "asn.json": valid });
    expect(loadRdapBootstrap(dir).asn.services).toEqual([]);
  });

  it.each([
    ["a missing file", { "dns.json": valid, "ipv4.json": valid, "ipv6.json": valid }, /asn\.json: ENOENT/],
    ["a file that is not JSON", { "dns.json": "{" }, /dns\.json: not JSON/],
    [
      "a service without URLs",
      { "dns.json": JSON.stringify({ publication: "x", services: [[["com"], []]] }) },
      /dns\.json: services\.0\.1: /,
    ],
    ["no publication", { "dns.json": JSON.stringify({ services: [] }) }, /dns\.json: publication: /],
  ])("fails clearly on %s, naming the file", (_, files, message) => {
    expect(() => loadRdapBootstrap(dirWith(files))).toThrow(message);
  });
});

describe("bootstrap matching", () => {
  const b = testBootstrap({
    dns: [
      [["uk"], ["http://uk.example.test/", "https://uk.example.test/"]],
      [["co.uk"], ["http://co-uk.example.test/"]],
    ],
    ipv4: [
      [["192.0.0.0/8"], ["https://wide.example.test/"]],
      [["192.0.2.0/24"], ["https://narrow.example.test/"]],
    ],
    ipv6: [[["2001:db8::/32"], ["https://v6.example.test/"]]],
  });

  it("domain: the longest suffix wins, https preferred", () => {
    expect(rdapBaseForDomain(b, "a.example.co.uk")).toBe("http://co-uk.example.test/");
    expect(rdapBaseForDomain(b, "example.uk")).toBe("https://uk.example.test/");
    expect(rdapBaseForDomain(b, "example.com")).toBeUndefined();
  });

  it("IP: the longest prefix wins; IPv6 and IPv4-mapped forms", () => {
    expect(rdapBaseForIp(b, "192.0.2.7")).toBe("https://narrow.example.test/");
    expect(rdapBaseForIp(b, "192.0.3.7")).toBe("https://wide.example.test/");
    expect(rdapBaseForIp(b, "2001:db8:1::1")).toBe("https://v6.example.test/");
    expect(rdapBaseForIp(b, "2001:db9::1")).toBeUndefined();
    expect(toBigInt("::ffff:192.0.2.1")).toBe(0xffffc0000201n);
  });
});
