import { getEventListeners } from "node:events";
import { createServer, type Server } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as pkg from "./index.js";
import type { ProbeJobSpec } from "./probe-params.js";
import type { PingResult } from "./probe-results.js";
import { probes, runProbe } from "./registry.js";
import { type DnsTestServer, startDnsServer } from "./testing/dns-server.js";
import { type HostLookup, probeTypes } from "./types.js";

let server: Server;
let port: number;
let dns: DnsTestServer;
beforeAll(async () => {
  server = createServer((s) => s.destroy());
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  port = (server.address() as { port: number }).port;
  dns = await startDnsServer();
});
afterAll(async () => {
  await dns.close();
  await new Promise((r) => server.close(r));
});

describe("registry and runProbe", () => {
  it("has one probe per type, each under its own name", () => {
    expect(Object.keys(probes).sort()).toEqual([...probeTypes].sort());
    for (const type of probeTypes) expect(probes[type].type).toBe(type);
  });

  it("exports the guard API the controller uses", () => {
    expect(pkg.isBlockedAddress("10.0.0.1")).toBe(true);
    expect(pkg.checkAddress("8.8.8.8").blocked).toBe(false);
    expect(typeof pkg.resolveAndCheck).toBe("function");
    expect(pkg.runProbe).toBe(runProbe);
  });

  it("dispatches by type and applies parameter defaults", async () => {
    const o = await runProbe({ type: "tcp", params: { host: "127.0.0.1", port } } as ProbeJobSpec, {
      allowPrivate: true,
    });
    expect(o.success, JSON.stringify(o.error)).toBe(true);
    expect(o.detail).toMatchObject({ resolved_ip: "127.0.0.1", port });
  });

  it("turns invalid parameters into a failed outcome instead of throwing", async () => {
    const bad = [
      { type: "tcp", params: { host: "127.0.0.1", port: 70_000 } },
      { type: "ping", params: { host: "" } },
      { type: "nonsense", params: {} },
      { type: "dns", params: null },
    ] as unknown as ProbeJobSpec[];
    for (const spec of bad) {
      const o = await runProbe(spec, { allowPrivate: true });
      expect(o).toMatchObject({ success: false, latency_ms: null, detail: null });
      expect(o.error?.code).toMatch(/^(invalid_target|probe_error)$/);
    }
  });

  it("reports the guard's refusal as target_not_allowed for every type", async () => {
    const specs: ProbeJobSpec[] = [
      {
        type: "http",
        params: {
          url: "http://127.0.0.1/",
          method: "GET",
          timeout_ms: 1000,
          follow_redirects: false,
          max_redirects: 5,
        },
      },
      { type: "ping", params: { host: "::1", count: 1, timeout_ms: 500, interval_ms: 100 } },
      {
        type: "dns",
        params: { domain: "example.test", record_type: "A", server: "[::1]:53", timeout_ms: 500 },
      },
      { type: "tcp", params: { host: "localhost", port, timeout_ms: 500 } },
      {
        type: "traceroute",
        params: { host: "169.254.169.254", max_hops: 3, timeout_ms: 500, queries_per_hop: 1 },
      },
    ];
    for (const spec of specs) {
      const o = await runProbe(spec, { allowPrivate: false });
      expect(o, spec.type).toMatchObject({ success: false, error: { code: "target_not_allowed" } });
    }
  });

  it("stops at once when the signal is already aborted", async () => {
    const o = await runProbe(
      { type: "ping", params: { host: "127.0.0.1", count: 50, timeout_ms: 5000, interval_ms: 1000 } },
      { allowPrivate: true, signal: AbortSignal.abort() },
    );
    expect(o).toMatchObject({ success: false, error: { code: "timeout" } });
    expect((o.detail as PingResult | null)?.packets_sent).toBe(0);
  });

  describe("when the resolver never answers", () => {
    // Stands in for a getaddrinfo stuck on an unreachable resolver. The name is `localhost` so that a
    // probe ignoring the injected resolver gets a quick answer from /etc/hosts instead of querying DNS.
    const hang: HostLookup = () => new Promise(() => {});
    const specs = (timeout_ms: number): ProbeJobSpec[] => [
      {
        type: "http",
        params: {
          url: `http://localhost:${port}/`,
          method: "GET",
          timeout_ms,
          follow_redirects: false,
          max_redirects: 5,
        },
      },
      { type: "ping", params: { host: "localhost", count: 1, timeout_ms, interval_ms: 100 } },
      {
        type: "dns",
        params: { domain: "www.example.test", record_type: "A", server: `localhost:${dns.port}`, timeout_ms },
      },
      { type: "tcp", params: { host: "localhost", port, timeout_ms } },
      { type: "traceroute", params: { host: "localhost", max_hops: 2, timeout_ms, queries_per_hop: 1 } },
      {
        type: "mtr",
        params: {
          host: "localhost",
          mode: "icmp",
          rounds: 1,
          max_hops: 2,
          interval_ms: 5000,
          timeout_ms: Math.min(timeout_ms, 5000),
        },
      },
    ];

    // A traceroute's and an mtr's timeout_ms is per probe: their lookup gets at least 5 s.
    it.each(probeTypes)("%s gives up at its own lookup budget with code timeout", async (type) => {
      const spec = specs(300).find((s) => s.type === type)!;
      const budget = type === "traceroute" || type === "mtr" ? 5000 : 300;
      const started = performance.now();
      const o = await runProbe(spec, { allowPrivate: true, lookup: hang });
      const elapsed = performance.now() - started;
      expect(o).toMatchObject({ success: false, error: { code: "timeout" } });
      expect(o.error?.message).toMatch(/localhost/);
      expect(elapsed).toBeGreaterThanOrEqual(budget - 50);
      expect(elapsed).toBeLessThan(budget + 2200);
    });

    it.each(probeTypes)("%s stops on abort and leaves no listener on the signal", async (type) => {
      const spec = specs(10_000).find((s) => s.type === type)!;
      const controller = new AbortController();
      const timer = setTimeout(() => controller.abort(), 100);
      const started = performance.now();
      const o = await runProbe(spec, { allowPrivate: true, signal: controller.signal, lookup: hang });
      const elapsed = performance.now() - started;
      clearTimeout(timer);
      expect(o).toMatchObject({ success: false, error: { code: "timeout" } });
      expect(elapsed).toBeLessThan(2500);
      expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);
    });
  });
});
