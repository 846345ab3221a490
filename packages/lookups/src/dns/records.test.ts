import {
  type DnsResponder,
  type DnsTestServer,
  startDnsServer,
  zoneAnswer,
} from "@vantage/probes/testing/dns-server";
import * as dnsPacket from "dns-packet";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runLookup } from "../registry.js";
import { failure } from "../testing/failure.js";
import type { LookupContext } from "../types.js";
import { dnsRecordsLookup } from "./records.js";

// Every test names its resolver: 127.0.0.1 or ::1 on a random port. Nothing reaches the host's resolver.
let zone: DnsTestServer;
let respond: DnsResponder = zoneAnswer;
let custom: DnsTestServer;
beforeAll(async () => {
  zone = await startDnsServer();
  custom = await startDnsServer((q, overTcp) => respond(q, overTcp));
});
afterAll(async () => {
  await zone.close();
  await custom.close();
});

const ctx = (extra: Partial<LookupContext> = {}): LookupContext => ({
  allowPrivate: true,
  dnsServer: `127.0.0.1:${zone.port}`,
  timeoutMs: 2000,
  ...extra,
});

describe("dns records lookup: values and TTLs", () => {
  it.each([
    ["A", "www.example.test", "192.0.2.10", 300],
    ["AAAA", "www.example.test", "2001:db8::10", 300],
    ["MX", "example.test", "10 mail.example.test.", 3600],
    ["TXT", "example.test", '"v=spf1 -all" "say \\"hi\\""', 60],
    ["NS", "example.test", "ns1.example.test.", 86400],
    ["CNAME", "alias.example.test", "www.example.test.", 120],
    [
      "SOA",
      "example.test",
      "ns1.example.test. hostmaster.example.test. 2026112201 7200 900 1209600 300",
      3600,
    ],
  ] as const)("%s %s: formatted as dig +short prints it, with its TTL", async (type, domain, value, ttl) => {
    const result = await dnsRecordsLookup.run({ domain, type }, ctx());
    expect(result).toEqual({ domain, status: "NOERROR", records: [{ type, value, ttl }] });
  });

  it("returns every type present when type is omitted, in a fixed order, from seven queries", async () => {
    const before = zone.seen.udp;
    const result = await dnsRecordsLookup.run({ domain: "example.test" }, ctx());
    expect(zone.seen.udp - before).toBe(7);
    expect(result).toEqual({
      domain: "example.test",
      status: "NOERROR",
      records: [
        { type: "MX", value: "10 mail.example.test.", ttl: 3600 },
        { type: "TXT", value: '"v=spf1 -all" "say \\"hi\\""', ttl: 60 },
        { type: "NS", value: "ns1.example.test.", ttl: 86400 },
        {
          type: "SOA",
          value: "ns1.example.test. hostmaster.example.test. 2026112201 7200 900 1209600 300",
          ttl: 3600,
        },
      ],
    });
    const www = await dnsRecordsLookup.run({ domain: "www.example.test" }, ctx());
    expect(www.records.map((r) => r.type)).toEqual(["A", "AAAA"]);
  });

  it("answers an existing name without records of the type with an empty list", async () => {
    const result = await dnsRecordsLookup.run({ domain: "www.example.test", type: "MX" }, ctx());
    expect(result).toEqual({ domain: "www.example.test", status: "NOERROR", records: [] });
  });

  it("normalises the input through runLookup: case, trailing dot, blank or lower-case type", async () => {
    const one = await runLookup("dns", { domain: " WWW.Example.TEST. ", type: "aaaa" }, ctx());
    expect(one).toEqual({
      domain: "www.example.test",
      status: "NOERROR",
      records: [{ type: "AAAA", value: "2001:db8::10", ttl: 300 }],
    });
    const all = await runLookup("dns", { domain: "www.example.test", type: "" }, ctx());
    expect(all.records.map((r) => r.type)).toEqual(["A", "AAAA"]);
  });

  it("joins a TXT record's strings after the TCP retry a truncated answer forces", async () => {
    const before = { ...zone.seen };
    const result = await dnsRecordsLookup.run({ domain: "big.example.test", type: "TXT" }, ctx());
    expect(result.records).toEqual([
      { type: "TXT", value: `"${"x".repeat(200)}" "${"y".repeat(200)}" "${"z".repeat(200)}"`, ttl: 60 },
    ]);
    expect(zone.seen.tcp - before.tcp).toBe(1);
  });

  it("queries a resolver given as [::1]:port", async () => {
    const result = await dnsRecordsLookup.run(
      { domain: "www.example.test", type: "A" },
      ctx({ dnsServer: `[::1]:${zone.port}` }),
    );
    expect(result.records).toEqual([{ type: "A", value: "192.0.2.10", ttl: 300 }]);
  });

  it("follows an alias to its addresses and drops records for names off the chain", async () => {
    respond = (q) =>
      dnsPacket.encode({
        type: "response",
        id: q.id ?? 0,
        flags: dnsPacket.RECURSION_DESIRED | dnsPacket.RECURSION_AVAILABLE,
        questions: q.questions ?? [],
        answers: [
          { type: "CNAME", name: "alias.example.test", ttl: 120, data: "WWW.example.test" },
          { type: "A", name: "www.example.test", ttl: 300, data: "192.0.2.10" },
          { type: "A", name: "elsewhere.test", ttl: 300, data: "192.0.2.66" },
        ],
      });
    const result = await dnsRecordsLookup.run(
      { domain: "alias.example.test", type: "A" },
      ctx({ dnsServer: `127.0.0.1:${custom.port}` }),
    );
    expect(result.records).toEqual([{ type: "A", value: "192.0.2.10", ttl: 300 }]);
  });
});

describe("dns records lookup: failures", () => {
  it.each([undefined, "A"] as const)(
    "NXDOMAIN (type %s) → an answer: status NXDOMAIN, no records",
    async (type) => {
      const result = await dnsRecordsLookup.run(
        type ? { domain: "missing.example.test", type } : { domain: "missing.example.test" },
        ctx(),
      );
      expect(result).toEqual({ domain: "missing.example.test", status: "NXDOMAIN", records: [] });
    },
  );

  it("a server that never answers → upstream_timeout when the lookup's time is up, after a second try", async () => {
    respond = () => null;
    const before = custom.seen.udp;
    const started = performance.now();
    const error = await failure(
      dnsRecordsLookup.run(
        { domain: "www.example.test" },
        ctx({ dnsServer: `127.0.0.1:${custom.port}`, timeoutMs: 400 }),
      ),
    );
    const ms = performance.now() - started;
    expect(error.code).toBe("upstream_timeout");
    expect(error.message).toBe(`no answer from 127.0.0.1:${custom.port} within 400 ms`);
    expect(ms).toBeGreaterThanOrEqual(380);
    expect(ms).toBeLessThan(1500);
    expect(custom.seen.udp - before).toBe(14);
  });

  it("tries a lost query again within the time left", async () => {
    let dropped = 0;
    respond = (q, overTcp) => (dropped++ === 0 ? null : zoneAnswer(q, overTcp));
    const result = await dnsRecordsLookup.run(
      { domain: "www.example.test", type: "A" },
      ctx({ dnsServer: `127.0.0.1:${custom.port}`, timeoutMs: 1000 }),
    );
    expect(result.records).toEqual([{ type: "A", value: "192.0.2.10", ttl: 300 }]);
    expect(dropped).toBe(2);
  });

  it("stops at once when the caller aborts", async () => {
    respond = () => null;
    const controller = new AbortController();
    const started = performance.now();
    const pending = dnsRecordsLookup.run(
      { domain: "www.example.test" },
      ctx({ dnsServer: `127.0.0.1:${custom.port}`, timeoutMs: 5000, signal: controller.signal }),
    );
    setTimeout(() => controller.abort(), 50);
    const error = await failure(pending);
    expect(error.code).toBe("upstream_timeout");
    expect(error.message).toMatch(/stopped/);
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it("all types: a type the resolver refuses is named in failed_types, the others answered", async () => {
    const refuse = (q: dnsPacket.DecodedPacket, overTcp: boolean, types: string[]) => {
      const reply = zoneAnswer(q, overTcp);
      if (types.includes(q.questions?.[0]?.type ?? "")) reply.writeUInt8((reply.readUInt8(3) & 0xf0) | 5, 3);
      return reply;
    };
    respond = (q, overTcp) => refuse(q, overTcp, ["MX", "TXT"]);
    const server = ctx({ dnsServer: `127.0.0.1:${custom.port}` });
    const result = await dnsRecordsLookup.run({ domain: "example.test" }, server);
    expect(result.status).toBe("NOERROR");
    expect(result.records.map((r) => r.type)).toEqual(["NS", "SOA"]);
    expect(result.failed_types).toEqual([
      {
        type: "MX",
        code: "upstream_error",
        message: `127.0.0.1:${custom.port} answered REFUSED to example.test MX`,
      },
      {
        type: "TXT",
        code: "upstream_error",
        message: `127.0.0.1:${custom.port} answered REFUSED to example.test TXT`,
      },
    ]);
    // Every type refused: an error, not an empty answer.
    respond = (q, overTcp) => refuse(q, overTcp, ["A", "AAAA", "MX", "TXT", "NS", "CNAME", "SOA"]);
    const error = await failure(dnsRecordsLookup.run({ domain: "example.test" }, server));
    expect(error.code).toBe("upstream_error");
    expect(error.message).toContain("REFUSED to example.test A");
  });

  it.each(["SERVFAIL", "REFUSED"] as const)("a %s answer → upstream_error", async (rcode) => {
    respond = (q, overTcp) => {
      const reply = zoneAnswer(q, overTcp);
      reply.writeUInt8((reply.readUInt8(3) & 0xf0) | (rcode === "SERVFAIL" ? 2 : 5), 3);
      return reply;
    };
    const error = await failure(
      dnsRecordsLookup.run(
        { domain: "www.example.test", type: "A" },
        ctx({ dnsServer: `127.0.0.1:${custom.port}` }),
      ),
    );
    expect(error.code).toBe("upstream_error");
    expect(error.message).toContain(rcode);
  });

  it.each(["127.0.0.1", "[::1]"])(
    "refuses a private resolver (%s) with target_not_allowed unless allowPrivate, before any query",
    async (host) => {
      const before = { ...zone.seen };
      const error = await failure(
        dnsRecordsLookup.run(
          { domain: "www.example.test" },
          ctx({ allowPrivate: false, dnsServer: `${host}:${zone.port}` }),
        ),
      );
      expect(error.code).toBe("target_not_allowed");
      expect(error.message).toMatch(/loopback/);
      expect(zone.seen).toEqual(before);
    },
  );

  it("checks the address a resolver given by name resolves to (through the context's lookup)", async () => {
    const lookup = async () => [{ address: "127.0.0.1", family: 4 }];
    const dnsServer = `resolver.example.test:${zone.port}`;
    const refused = await failure(
      dnsRecordsLookup.run({ domain: "www.example.test" }, ctx({ allowPrivate: false, dnsServer, lookup })),
    );
    expect(refused.code).toBe("target_not_allowed");
    expect(refused.message).toContain("resolver.example.test resolves to 127.0.0.1");
    const allowed = await dnsRecordsLookup.run(
      { domain: "www.example.test", type: "A" },
      ctx({ allowPrivate: true, dnsServer, lookup }),
    );
    expect(allowed.records).toHaveLength(1);
  });

  it("a resolver address that cannot be parsed → invalid_input naming the server", async () => {
    const error = await failure(
      dnsRecordsLookup.run({ domain: "www.example.test" }, ctx({ dnsServer: "127.0.0.1:0" })),
    );
    expect(error.code).toBe("invalid_input");
    expect(error.issues).toEqual([{ path: "server", message: expect.stringContaining("bad port") }]);
  });
});
