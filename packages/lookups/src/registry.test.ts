import { describe, expect, it } from "vitest";
import { dnsRecordsLookup } from "./dns/records.js";
import { dnsRecordsInputSchema } from "./dns/schema.js";
import * as pkg from "./index.js";
import { lookups, runLookup } from "./registry.js";
import { type Lookup, LookupError, type LookupKind, lookupKinds } from "./types.js";

// No test here sends a query: every input is refused before the lookup runs. The resolver named is a
// closed port on loopback all the same, so a regression cannot reach the host's resolver.
const ctx = { allowPrivate: true, dnsServer: "127.0.0.1:9", timeoutMs: 200 };

async function invalid(input: unknown, kind: LookupKind = "dns"): Promise<LookupError> {
  const error = await runLookup(kind, input, ctx).then(
    (value) => {
      throw new Error(`expected invalid_input, got ${JSON.stringify(value)}`);
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(LookupError);
  expect((error as LookupError).code).toBe("invalid_input");
  return error as LookupError;
}

describe("registry", () => {
  it("has one lookup per kind, each under its own name", () => {
    expect(Object.keys(lookups).sort()).toEqual([...lookupKinds].sort());
    for (const kind of lookupKinds) expect(lookups[kind].kind).toBe(kind);
    expect(lookups.dns).toBe(dnsRecordsLookup);
  });

  it("is checked exhaustive by the compiler", () => {
    // @ts-expect-error: a registry missing a kind does not type-check (`dns` is absent).
    const missing: { [K in LookupKind]: Lookup<K> } = {};
    // @ts-expect-error: nor does one filing a lookup under another kind's name.
    const misfiled: { [K in LookupKind]: Lookup<K> } = { dns: { ...dnsRecordsLookup, kind: "whois" } };
    expect([missing, misfiled]).toHaveLength(2);
  });

  it("is the package's public face", () => {
    expect(pkg.runLookup).toBe(runLookup);
    expect(pkg.lookups).toBe(lookups);
    expect(pkg.LookupError).toBe(LookupError);
    expect(pkg.lookupKinds).toEqual(["ip", "whois", "ssl", "dns", "icp", "reputation"]);
    expect(pkg.lookupErrorCodes).toEqual([
      "invalid_input",
      "not_found",
      "target_not_allowed",
      "upstream_error",
      "unavailable",
      "upstream_timeout",
    ]);
  });
});

describe("runLookup input validation", () => {
  it.each([
    ["", "expected a domain name"],
    ["exa mple.com", "labels"],
    ["-foo.example", "labels"],
    ["foo-.example", "labels"],
    ["a..example", "labels"],
    ["a/b.example", "labels"],
    ["*.example", "labels"],
    ["[::1]", "labels"],
    ["192.0.2.1", "not an IP address"],
    [`${"x".repeat(64)}.example`, "labels"],
    [`${"abcdefghi.".repeat(24)}abcdef.example`, "at most 253"],
  ])("refuses the domain %j with the field path", async (domain, message) => {
    const error = await invalid({ domain });
    expect(error.issues[0]).toEqual({ path: "domain", message: expect.stringContaining(message) });
    expect(error.message).toMatch(/^domain: /);
  });

  it.each([
    [{}, "domain"],
    [{ domain: 42 }, "domain"],
    [{ domain: "example.test", type: "PTR" }, "type"],
    [{ domain: "example.test", type: 1 }, "type"],
    [{ domain: "example.test", server: "192.0.2.53" }, "server"],
  ])("refuses %j at %s", async (input, path) => {
    const error = await invalid(input);
    expect(error.issues.map((i) => i.path)).toEqual([path]);
  });

  it("names the unknown field, as the API's unknown_field details do", async () => {
    const error = await invalid({ domain: "example.test", server: "192.0.2.53" });
    expect(error.issues).toEqual([{ path: "server", message: "unknown field" }]);
  });

  it("refuses input that is not an object, and an unknown kind", async () => {
    expect((await invalid(null)).issues).toEqual([{ path: "", message: expect.any(String) }]);
    const unknownKind = await invalid({ domain: "example.test" }, "traceroute" as LookupKind);
    expect(unknownKind.message).toBe("unknown lookup kind traceroute");
    expect((await invalid({ domain: "example.test" }, "toString" as LookupKind)).code).toBe("invalid_input");
  });

  it.each([
    ["Example.TEST.", "example.test"],
    ["_dmarc.example.test", "_dmarc.example.test"],
    ["Bücher.example", "xn--bcher-kva.example"],
    ["xn--bcher-kva.example", "xn--bcher-kva.example"],
    ["localhost", "localhost"],
  ])("accepts %j as %j", (domain, queried) => {
    expect(dnsRecordsInputSchema.parse({ domain })).toEqual({ domain: queried });
  });
});
