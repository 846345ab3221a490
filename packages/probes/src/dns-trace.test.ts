import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DnsParams } from "./probe-params.js";
import { type ChildRun, probesEntry, runChildNode } from "./testing/child-node.js";
import { type LoOnlyNetns, loOnlyNetns } from "./testing/lo-only-netns.js";
import type { ProbeOutcome } from "./types.js";

/**
 * `trace` against a lab of authoritative servers: a root (192.0.2.53), the `test.` TLD (198.51.100.53)
 * and `vantage.test.` (203.0.113.53), each a tiny responder on port 53 of its address, all inside a
 * namespace holding only `lo`. The probe runs there too (a child process), its roots set to the lab's.
 */
const authorityModule = fileURLToPath(new URL("./testing/dns-authority.ts", import.meta.url));
const ROOT = "192.0.2.53";
const TLD = "198.51.100.53";
const AUTH = "203.0.113.53";

const authorities = [
  {
    address: ROOT,
    zone: ".",
    delegations: [{ zone: "test.", ns: [{ name: "ns.nic.test", address: TLD }] }],
  },
  {
    address: TLD,
    zone: "test.",
    delegations: [
      { zone: "vantage.test.", ns: [{ name: "ns1.vantage.test", address: AUTH }] },
      // Served by vantage.test's server, named without glue: its address is looked up from the roots.
      { zone: "other.test.", ns: [{ name: "ns1.vantage.test", address: AUTH }], glue: false },
      // A zone whose server sits on a private address: the guard must refuse to follow it.
      { zone: "inside.test.", ns: [{ name: "ns.inside.test", address: "10.0.0.53" }] },
    ],
  },
  {
    address: AUTH,
    zone: "vantage.test.",
    records: [
      { type: "A", name: "www.vantage.test", ttl: 300, data: "203.0.113.10" },
      { type: "AAAA", name: "www.vantage.test", ttl: 300, data: "2001:db8::10" },
      { type: "A", name: "ns1.vantage.test", ttl: 300, data: AUTH },
      { type: "A", name: "www.other.test", ttl: 300, data: "203.0.113.20" },
    ],
  },
];

type Case = { name: string; params: Partial<DnsParams> & { domain: string }; allowPrivate?: boolean };
const cases: Case[] = [
  { name: "a", params: { domain: "www.vantage.test", trace: true } },
  { name: "aaaa", params: { domain: "www.vantage.test", record_type: "AAAA", trace: true } },
  { name: "nx", params: { domain: "nope.vantage.test", trace: true } },
  { name: "glueless", params: { domain: "www.other.test", trace: true } },
  { name: "private", params: { domain: "www.inside.test", trace: true } },
  { name: "guarded", params: { domain: "www.vantage.test", trace: true }, allowPrivate: false },
];

describe("dns trace from lab roots (namespace, root)", () => {
  let ns: LoOnlyNetns;
  let child: ChildRun;
  const out = new Map<string, ProbeOutcome<"dns">>();

  beforeAll(() => {
    ns = loOnlyNetns("trace");
    for (const a of [ROOT, TLD, AUTH])
      execFileSync("ip", ["-n", ns.name, "addr", "add", `${a}/32`, "dev", "lo"], { stdio: "pipe" });
    const source = [
      `import { dnsProbe } from ${JSON.stringify(probesEntry)};`,
      `import { startAuthorities } from ${JSON.stringify(authorityModule)};`,
      `const lab = await startAuthorities(${JSON.stringify(authorities)});`,
      `for (const c of ${JSON.stringify(cases)}) {`,
      "  const params = { record_type: 'A', timeout_ms: 1000, ...c.params };",
      `  const ctx = { allowPrivate: c.allowPrivate ?? true, dnsRoots: [${JSON.stringify(ROOT)}] };`,
      "  console.log(JSON.stringify({ name: c.name, o: await dnsProbe.run(params, ctx) }));",
      "}",
      "lab.close();",
    ].join("\n");
    child = runChildNode(source, { netns: ns.name });
    for (const line of child.lines as { name: string; o: ProbeOutcome<"dns"> }[]) out.set(line.name, line.o);
  });
  afterAll(() => ns?.remove());

  const outcome = (name: string) => {
    const o = out.get(name);
    if (!o) throw new Error(`no result for ${name} (exit ${child.status}): ${child.stderr.slice(-2000)}`);
    return o;
  };

  it("walks root → test. → vantage.test. and ends with the authoritative answer", () => {
    const o = outcome("a");
    expect(o.success, JSON.stringify(o.error)).toBe(true);
    expect(o.detail?.trace).toEqual([
      expect.objectContaining({
        zone: ".",
        server: ROOT,
        server_name: null,
        rcode: "NOERROR",
        referral: ["ns.nic.test."],
        answers: [],
      }),
      expect.objectContaining({
        zone: "test.",
        server: TLD,
        server_name: "ns.nic.test.",
        referral: ["ns1.vantage.test."],
      }),
      expect.objectContaining({
        zone: "vantage.test.",
        server: AUTH,
        server_name: "ns1.vantage.test.",
        rcode: "NOERROR",
        referral: [],
        answers: [{ name: "www.vantage.test.", type: "A", ttl: 300, value: "203.0.113.10" }],
      }),
    ]);
    expect(o.detail).toMatchObject({ resolver: AUTH, rcode: "NOERROR", protocol: "udp" });
    expect(o.detail?.flags).toContain("aa");
    expect(o.detail?.answers).toEqual([
      { name: "www.vantage.test.", type: "A", ttl: 300, value: "203.0.113.10" },
    ]);
    expect(outcome("aaaa").detail?.answers[0]?.value).toBe("2001:db8::10");
  });

  it("follows a delegation without glue: the NS name's address is looked up from the roots", () => {
    const o = outcome("glueless");
    expect(o.success, JSON.stringify(o.error)).toBe(true);
    expect(o.detail?.answers).toEqual([
      { name: "www.other.test.", type: "A", ttl: 300, value: "203.0.113.20" },
    ]);
    // The trace shows the question's own path; the lookup of ns1.vantage.test is not part of it.
    expect(o.detail?.trace?.map((s) => [s.zone, s.server, s.server_name])).toEqual([
      [".", ROOT, null],
      ["test.", TLD, "ns.nic.test."],
      ["other.test.", AUTH, "ns1.vantage.test."],
    ]);
  });

  it("an NXDOMAIN from the authority ends the trace as an answer", () => {
    const o = outcome("nx");
    expect(o.success).toBe(true);
    expect(o.detail).toMatchObject({ rcode: "NXDOMAIN", answers: [] });
    expect(o.detail?.trace).toHaveLength(3);
  });

  it("never follows a referral to a private address unless private targets are allowed", () => {
    // Allowed here (tests), but 10.0.0.53 is unreachable in the namespace: that server fails, the trace
    // says which zone had no answering server.
    const p = outcome("private");
    expect(p.success).toBe(false);
    expect(p.error?.message).toContain("inside.test.");
    // Without the allowance the configured root is still asked, and the first referral (TEST-NET) refused.
    const g = outcome("guarded");
    expect(g).toMatchObject({ success: false, error: { code: "target_not_allowed" } });
    expect(g.detail?.trace?.[0]).toMatchObject({ zone: ".", server: ROOT, rcode: "NOERROR" });
    expect(child.status, child.stderr.slice(-2000)).toBe(0);
  });
});
