import { type DnsTestServer, startDnsServer } from "@vantage/probes/testing/dns-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Budget, pickResolver, queryResolver } from "./resolver.js";

// The DNS records and reputation tests cover the answers; these cover the choice of resolver and the time.
let zone: DnsTestServer;
let silent: DnsTestServer;
beforeAll(async () => {
  zone = await startDnsServer();
  silent = await startDnsServer(() => null);
});
afterAll(async () => {
  await zone.close();
  await silent.close();
});

const budget = (ms: number): Budget => ({
  signal: new AbortController().signal,
  endsAt: performance.now() + ms,
});

describe("pickResolver", () => {
  it("names a server by address and port, IPv6 in brackets", async () => {
    expect(await pickResolver(`[::1]:${zone.port}`, { allowPrivate: true }, budget(1000))).toEqual({
      address: "::1",
      family: 6,
      port: zone.port,
      label: `[::1]:${zone.port}`,
    });
  });

  it("sends a named server through the target guard unless allowPrivate", async () => {
    await expect(
      pickResolver(`127.0.0.1:${zone.port}`, { allowPrivate: false }, budget(1000)),
    ).rejects.toMatchObject({ code: "target_not_allowed" });
    await expect(pickResolver("1.2.3.4:99999", { allowPrivate: true }, budget(1000))).rejects.toMatchObject({
      code: "invalid_target",
    });
  });

  it("resolves a server's name through the given lookup", async () => {
    const resolver = await pickResolver(
      `resolver.example.test:${zone.port}`,
      { allowPrivate: true, lookup: async () => [{ address: "127.0.0.1", family: 4 }] },
      budget(1000),
    );
    expect(resolver.label).toBe(`127.0.0.1:${zone.port}`);
  });
});

describe("queryResolver", () => {
  it("answers whatever the rcode", async () => {
    const resolver = await pickResolver(`127.0.0.1:${zone.port}`, { allowPrivate: true }, budget(1000));
    const found = await queryResolver("www.example.test", "A", resolver, budget(1000));
    expect(found).toMatchObject({ rcode: "NOERROR", answers: [{ value: "192.0.2.10" }] });
    const missing = await queryResolver("missing.example.test", "A", resolver, budget(1000));
    expect(missing).toMatchObject({ rcode: "NXDOMAIN", answers: [] });
  });

  it("sends a lost query twice, within the budget, then fails timeout", async () => {
    const resolver = await pickResolver(`127.0.0.1:${silent.port}`, { allowPrivate: true }, budget(1000));
    const before = silent.seen.udp;
    const started = performance.now();
    await expect(queryResolver("www.example.test", "A", resolver, budget(300))).rejects.toMatchObject({
      code: "timeout",
    });
    expect(performance.now() - started).toBeLessThan(800);
    expect(silent.seen.udp - before).toBe(2);
    await expect(queryResolver("www.example.test", "A", resolver, budget(0))).rejects.toThrow(
      `no time left to ask 127.0.0.1:${silent.port} for www.example.test A`,
    );
  });
});
