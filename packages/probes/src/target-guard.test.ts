import { getEventListeners } from "node:events";
import { describe, expect, it } from "vitest";
import { checkAddress, isBlockedAddress, resolveAndCheck } from "./target-guard.js";
import type { HostLookup } from "./types.js";

const blocked: [string, string][] = [
  // IPv4
  ["0.0.0.0", "unspecified"],
  ["0.1.2.3", "unspecified"],
  ["127.0.0.1", "loopback"],
  ["127.255.255.254", "loopback"],
  ["10.0.0.1", "private"],
  ["172.16.0.1", "private"],
  ["172.31.255.255", "private"],
  ["192.168.1.1", "private"],
  ["100.64.0.1", "cgnat"],
  ["100.127.255.254", "cgnat"],
  ["169.254.1.1", "link_local"],
  ["169.254.169.254", "metadata"],
  ["100.100.100.200", "metadata"],
  ["168.63.129.16", "metadata"],
  ["224.0.0.1", "multicast"],
  ["239.255.255.250", "multicast"],
  ["240.0.0.1", "reserved"],
  ["255.255.255.255", "broadcast"],
  ["192.0.2.1", "documentation"],
  ["198.51.100.7", "documentation"],
  ["203.0.113.200", "documentation"],
  ["198.18.0.1", "benchmark"],
  ["198.19.255.255", "benchmark"],
  ["192.0.0.8", "protocol_assignments"],
  ["192.88.99.1", "reserved"],
  // IPv6
  ["::", "unspecified"],
  ["::1", "loopback"],
  ["fc00::1", "private"],
  ["fd12:3456::1", "private"],
  ["fd00:ec2::254", "metadata"],
  ["fe80::1", "link_local"],
  ["fe80::1%eth0", "link_local"],
  ["[fe80::1]", "link_local"],
  ["febf:ffff::1", "link_local"],
  ["fec0::1", "private"],
  ["ff02::1", "multicast"],
  ["2001:db8::1", "documentation"],
  ["3fff::1", "documentation"],
  ["2001:2::1", "benchmark"],
  ["100::1", "reserved"],
  ["64:ff9b:1::1", "private"],
  // IPv4 inside IPv6: the IPv4 address decides
  ["::ffff:127.0.0.1", "loopback"],
  ["::ffff:7f00:1", "loopback"],
  ["::ffff:10.1.2.3", "private"],
  ["::ffff:169.254.169.254", "metadata"],
  ["::ffff:0:192.168.0.1", "private"],
  ["::127.0.0.1", "loopback"],
  ["::8.8.8.8", "reserved"],
  ["64:ff9b::10.0.0.1", "private"],
  ["64:ff9b::7f00:1", "loopback"],
  ["2002:7f00:1::", "loopback"],
  ["2002:c0a8:101::1", "private"],
  ["2001:0:4136:e378:8000:63bf:f5ff:fffe", "private"], // Teredo, client 10.0.0.1 (bit-inverted)
];

const allowed = [
  "8.8.8.8",
  "1.1.1.1",
  "172.32.0.1",
  "100.128.0.1",
  "198.20.0.1",
  "2606:4700:4700::1111",
  "2a00:1450::1",
  "::ffff:8.8.8.8",
  "64:ff9b::808:808",
  "2002:808:808::1",
];

describe("checkAddress", () => {
  it.each(blocked)("refuses %s as %s", (ip, category) => {
    const v = checkAddress(ip);
    expect(v.blocked).toBe(true);
    expect(v.category).toBe(category);
    expect(v.range).not.toBeNull();
    expect(isBlockedAddress(ip)).toBe(true);
  });

  it.each(allowed)("lets %s through", (ip) => {
    const v = checkAddress(ip);
    expect(v).toMatchObject({ blocked: false, category: null, range: null });
    expect(isBlockedAddress(ip)).toBe(false);
  });

  it("names the embedded IPv4 address of mapped and 6to4 forms", () => {
    expect(checkAddress("::ffff:127.0.0.1").embedded_ipv4).toBe("127.0.0.1");
    expect(checkAddress("2002:c0a8:101::1").embedded_ipv4).toBe("192.168.1.1");
    expect(checkAddress("64:ff9b::808:808")).toMatchObject({ blocked: false, embedded_ipv4: "8.8.8.8" });
  });

  it("fails closed on anything that is not an IP address", () => {
    for (const junk of ["", "localhost", "1.2.3", "999.1.1.1", "::g", "1.2.3.4.5"]) {
      expect(checkAddress(junk)).toMatchObject({ blocked: true, category: "invalid" });
    }
  });
});

describe("resolveAndCheck", () => {
  it("refuses a name that resolves to loopback (localhost) by default", async () => {
    await expect(resolveAndCheck("localhost", { allowPrivate: false })).rejects.toMatchObject({
      code: "target_not_allowed",
      message: expect.stringMatching(/localhost resolves to (127\.0\.0\.1|::1).*loopback/),
    });
  });

  it("refuses literal private targets, bracketed IPv6 and IPv4-mapped included", async () => {
    for (const host of ["10.1.2.3", "[::1]", "::ffff:192.168.0.1", "169.254.169.254"]) {
      await expect(resolveAndCheck(host, { allowPrivate: false })).rejects.toMatchObject({
        code: "target_not_allowed",
      });
    }
  });

  it("pins one address of the requested family when the guard is lifted", async () => {
    await expect(resolveAndCheck("localhost", { allowPrivate: true, family: 4 })).resolves.toMatchObject({
      address: "127.0.0.1",
      family: 4,
    });
    await expect(resolveAndCheck("[::1]", { allowPrivate: true })).resolves.toMatchObject({
      address: "::1",
      family: 6,
      lookup_ms: 0,
    });
  });

  // (An unknown name is not tested here: resolving it would send a query to the machine's resolver.)
  it("reports a literal of the wrong family and an empty host as invalid targets", async () => {
    await expect(resolveAndCheck("::1", { allowPrivate: true, family: 4 })).rejects.toMatchObject({
      code: "invalid_target",
    });
    await expect(resolveAndCheck(" ", { allowPrivate: true })).rejects.toMatchObject({
      code: "invalid_target",
    });
  });

  describe("with an injected resolver", () => {
    // `localhost` throughout: were the injected resolver ignored, /etc/hosts would answer, not DNS.
    const hang: HostLookup = () => new Promise(() => {});
    const timers = () => process.getActiveResourcesInfo().filter((r) => r === "Timeout").length;

    it("asks it instead of the system resolver, and checks what it answers", async () => {
      const lookup: HostLookup = async () => [{ address: "192.0.2.1", family: 4 }];
      await expect(resolveAndCheck("localhost", { allowPrivate: false, lookup })).rejects.toMatchObject({
        code: "target_not_allowed",
        message: expect.stringMatching(/localhost resolves to 192\.0\.2\.1.*documentation/),
      });
      await expect(
        resolveAndCheck("localhost", {
          allowPrivate: false,
          lookup: async () => [{ address: "8.8.8.8", family: 4 }],
        }),
      ).resolves.toMatchObject({ address: "8.8.8.8", family: 4 });
    });

    it("offers the other family's first address as a fallback, when no family is fixed and the guard allows it", async () => {
      const answer =
        (other: string): HostLookup =>
        async () => [
          { address: "2606:4700::1111", family: 6 },
          { address: "2606:4700::1001", family: 6 },
          { address: other, family: 4 },
        ];
      await expect(
        resolveAndCheck("localhost", { allowPrivate: false, lookup: answer("1.1.1.1") }),
      ).resolves.toMatchObject({ address: "2606:4700::1111", fallback: { address: "1.1.1.1", family: 4 } });
      const blocked = await resolveAndCheck("localhost", { allowPrivate: false, lookup: answer("10.0.0.1") });
      expect(blocked.fallback).toBeUndefined();
      const fixed = await resolveAndCheck("localhost", {
        allowPrivate: false,
        family: 6,
        lookup: answer("1.1.1.1"),
      });
      expect(fixed.fallback).toBeUndefined();
    });

    it("reports a resolver error as dns_resolution_failed", async () => {
      const lookup: HostLookup = () =>
        Promise.reject(Object.assign(new Error("getaddrinfo ENOTFOUND"), { code: "ENOTFOUND" }));
      await expect(
        resolveAndCheck("localhost", { allowPrivate: true, timeoutMs: 1000, lookup }),
      ).rejects.toMatchObject({ code: "dns_resolution_failed", message: expect.stringMatching(/ENOTFOUND/) });
    });

    it("stops waiting for a hung lookup at timeoutMs: timeout, listener removed", async () => {
      const signal = new AbortController().signal;
      const started = performance.now();
      await expect(
        resolveAndCheck("localhost", { allowPrivate: true, timeoutMs: 200, signal, lookup: hang }),
      ).rejects.toMatchObject({ code: "timeout", message: "no address for localhost within 200 ms" });
      expect(performance.now() - started).toBeLessThan(2000);
      expect(getEventListeners(signal, "abort")).toHaveLength(0);
    });

    it("stops waiting for a hung lookup on abort: timeout, timer cleared", async () => {
      const before = timers();
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 50);
      await expect(
        resolveAndCheck("localhost", {
          allowPrivate: true,
          timeoutMs: 30_000,
          signal: controller.signal,
          lookup: hang,
        }),
      ).rejects.toMatchObject({ code: "timeout", message: "stopped while resolving localhost" });
      expect(timers()).toBe(before);
    });

    it("clears its timer and listener when the lookup answers in time", async () => {
      const before = timers();
      const signal = new AbortController().signal;
      const lookup: HostLookup = async () => [{ address: "127.0.0.1", family: 4 }];
      await resolveAndCheck("localhost", { allowPrivate: true, timeoutMs: 30_000, signal, lookup });
      expect(timers()).toBe(before);
      expect(getEventListeners(signal, "abort")).toHaveLength(0);
    });

    it("does not start a lookup when the signal is already aborted", async () => {
      let asked = 0;
      const lookup: HostLookup = async () => {
        asked++;
        return [{ address: "127.0.0.1", family: 4 }];
      };
      await expect(
        resolveAndCheck("localhost", { allowPrivate: true, signal: AbortSignal.abort(), lookup }),
      ).rejects.toMatchObject({ code: "timeout" });
      expect(asked).toBe(0);
    });
  });
});
