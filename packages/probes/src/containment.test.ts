import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { probeErrorCodes } from "./probe-results.js";
import { type ChildRun, probesEntry, runChildNode } from "./testing/child-node.js";
import { type LoOnlyNetns, loOnlyNetns } from "./testing/lo-only-netns.js";

/*
 * Issue #26: one DNS probe in a network with no route to its resolver ended the whole process. These run
 * the probes in a child process, where an exception that escapes would kill it: exit status 0 and one
 * printed result per probe are the proof that every failure settled. The networks are a namespace holding
 * only `lo` (nothing can leave it; name lookups go to an unroutable TEST-NET resolver) and a process
 * short of file descriptors on loopback.
 */

interface Printed {
  name: string;
  success: boolean;
  error: { code: string; message: string } | null;
}

/** A child script that runs each `[name, call]` one after the other and prints its outcome. */
const script = (cases: string) => `
import { queryTcp } from ${JSON.stringify(probesEntry.replace(/index\.ts$/, "dns-transport.ts"))};
import { dnsProbe, httpProbe, pingProbe, tcpProbe, tracerouteProbe } from ${JSON.stringify(probesEntry)};
const allow = { allowPrivate: true };
const viaTcp = (address, family) =>
  queryTcp(Buffer.alloc(12), 1, { address, family, port: 53, timeoutMs: 3000 }).then(
    () => ({ success: true, error: null }),
    (e) => ({ success: false, error: { code: e.code, message: e.message } }),
  );
const cases = [${cases}];
for (const [name, run] of cases) {
  const o = await run();
  console.log(JSON.stringify({ name, success: o.success, error: o.error }));
}
`;

/** Every probe type against one address (IPv6 in brackets where a URL or server needs them). */
const allProbes = (address: string) => {
  const bracketed = address.includes(":") ? `[${address}]` : address;
  const family = address.includes(":") ? 6 : 4;
  return `
  ["dns udp ${address}", () => dnsProbe.run({ domain: "crash.test", record_type: "A", timeout_ms: 3000, server: "${bracketed}" }, allow)],
  ["dns tcp ${address}", () => viaTcp("${address}", ${family})],
  ["tcp ${address}", () => tcpProbe.run({ host: "${address}", port: 53, timeout_ms: 3000 }, allow)],
  ["http ${address}", () => httpProbe.run({ url: "http://${bracketed}/", method: "GET", timeout_ms: 3000, follow_redirects: false, max_redirects: 0 }, allow)],
  ["ping ${address}", () => pingProbe.run({ host: "${address}", count: 2, timeout_ms: 1000, interval_ms: 20 }, allow)],
  ["traceroute ${address}", () => tracerouteProbe.run({ host: "${address}", max_hops: 30, queries_per_hop: 3, timeout_ms: 1000 }, allow)],`;
};

function results(run: ChildRun, expected: number): Printed[] {
  expect(run.status, `child died: ${run.signal ?? ""}\n${run.stderr}`).toBe(0);
  expect(run.lines).toHaveLength(expected);
  return run.lines as Printed[];
}

const byName = (printed: Printed[]) => Object.fromEntries(printed.map((p) => [p.name, p]));

describe("probes in a network namespace holding only lo", () => {
  let ns: LoOnlyNetns;
  beforeAll(() => {
    ns = loOnlyNetns("contain", {
      hosts: "127.0.0.1 localhost\n::1 localhost\n2001:db8::53 v6only.test\n",
      resolvConf: "nameserver 198.51.100.53\n",
    });
  });
  afterAll(() => ns.remove());

  it("no route anywhere: every probe is a network_unreachable result, and the process lives", () => {
    const run = runChildNode(
      script(`${allProbes("198.51.100.53")}${allProbes("2001:db8::53")}
  ["dns system resolver", () => dnsProbe.run({ domain: "crash.test", record_type: "A", timeout_ms: 3000 }, { allowPrivate: false })],
  ["dns named server", () => dnsProbe.run({ domain: "crash.test", record_type: "A", timeout_ms: 3000, server: "ns.crash.test" }, allow)],
  ["tcp named host", () => tcpProbe.run({ host: "crash.test", port: 80, timeout_ms: 3000 }, allow)],`),
      { netns: ns.name },
    );
    const out = byName(results(run, 15));
    for (const address of ["198.51.100.53", "2001:db8::53"]) {
      for (const probe of ["dns udp", "dns tcp", "tcp", "http", "ping", "traceroute"]) {
        expect(out[`${probe} ${address}`], `${probe} ${address}`).toMatchObject({
          success: false,
          error: {
            code: "network_unreachable",
            message: `no route to the network of ${address} (${probe.startsWith("ping") || probe.startsWith("traceroute") ? "send" : "connect"} ENETUNREACH)`,
          },
        });
      }
    }
    // The node's own resolver (the namespace's resolv.conf) is just as unreachable: the crash of #26.
    expect(out["dns system resolver"]?.error).toEqual({
      code: "network_unreachable",
      message: "no route to the network of 198.51.100.53 (connect ENETUNREACH)",
    });
    for (const name of ["dns named server", "tcp named host"]) {
      expect(out[name]?.error).toMatchObject({
        code: "dns_resolution_failed",
        message: expect.stringMatching(/the node's resolver did not answer \(EAI_AGAIN\)$/),
      });
    }
  });

  it("IPv6 disabled: IPv6 literals and AAAA-only names are ipv6_unavailable results", () => {
    ns.setIpv6(false);
    try {
      const run = runChildNode(
        script(`${allProbes("::1")}${allProbes("2001:db8::53")}
  ["tcp v6only.test", () => tcpProbe.run({ host: "v6only.test", port: 80, timeout_ms: 3000 }, allow)],`),
        { netns: ns.name },
      );
      const printed = results(run, 13);
      for (const p of printed) {
        expect(p, p.name).toMatchObject({
          success: false,
          error: {
            code: "ipv6_unavailable",
            message: expect.stringMatching(/IPv6 is disabled on it \(\w+ EADDRNOTAVAIL\)$/),
          },
        });
      }
    } finally {
      ns.setIpv6(true);
    }
  });
});

describe("probes in a process out of file descriptors", () => {
  it("every probe settles with a result (resources_exhausted without a socket) and the process lives", () => {
    const N = 12;
    // The limit is low but leaves room to load the modules; the child then fills what is left with
    // /dev/null. First with the table full, where every probe must fail to open its socket; then with a
    // few descriptors given back, where a burst races for them and every probe must still settle.
    const run = runChildNode(
      `
import { createServer } from "node:net";
import { closeSync, openSync } from "node:fs";
import { dnsProbe, httpProbe, pingProbe, tcpProbe, tracerouteProbe } from ${JSON.stringify(probesEntry)};
const allow = { allowPrivate: true };
const server = createServer((s) => s.end("HTTP/1.1 204 No Content\\r\\n\\r\\n"));
await new Promise((r) => server.listen(0, "127.0.0.1", r));
const port = server.address().port;
const burst = (n) => {
  const runs = [];
  for (let i = 0; i < n; i++) {
    runs.push(
      ["dns", dnsProbe.run({ domain: "crash.test", record_type: "A", timeout_ms: 3000, server: "127.0.0.1:" + port }, allow)],
      ["tcp", tcpProbe.run({ host: "127.0.0.1", port, timeout_ms: 3000 }, allow)],
      ["http", httpProbe.run({ url: "http://127.0.0.1:" + port + "/", method: "GET", timeout_ms: 3000, follow_redirects: false, max_redirects: 0 }, allow)],
      ["ping", pingProbe.run({ host: "::1", count: 1, timeout_ms: 1000, interval_ms: 20 }, allow)],
      ["traceroute", tracerouteProbe.run({ host: "127.0.0.1", max_hops: 2, queries_per_hop: 1, timeout_ms: 1000 }, allow)],
    );
  }
  return runs;
};
const print = async (phase, runs) => {
  for (const [name, p] of runs) {
    const o = await p;
    console.log(JSON.stringify({ name: phase + " " + name, success: o.success, error: o.error }));
  }
};
const filler = [];
try { for (;;) filler.push(openSync("/dev/null", "r")); } catch (e) { if (e.code !== "EMFILE") throw e; }
await print("full", burst(1));
for (const fd of filler.splice(0, 3)) closeSync(fd);
await print("burst", burst(${N}));
for (const fd of filler) closeSync(fd);
server.close();
`,
      { maxOpenFiles: 256 },
    );
    const printed = results(run, 5 + N * 5);
    for (const p of printed.filter((p) => p.name.startsWith("full "))) {
      expect(p, p.name).toMatchObject({
        success: false,
        error: {
          code: "resources_exhausted",
          message: expect.stringMatching(
            /^the node is out of file descriptors \((bind|connect|socket) EMFILE\)$/,
          ),
        },
      });
    }
    const codes = new Set<string>(probeErrorCodes);
    const burst = printed.filter((p) => p.name.startsWith("burst "));
    for (const p of burst) {
      if (!p.success) expect(codes.has(p.error?.code ?? ""), JSON.stringify(p)).toBe(true);
    }
    expect(burst.some((p) => p.error?.code === "resources_exhausted")).toBe(true);
  });
});
