import { createServer, type Server } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tcpProbe } from "./tcp.js";
import { nftTable } from "./testing/nft-rules.js";

const allow = { allowPrivate: true };

function listen(host: string): Promise<Server> {
  return new Promise((resolve) => {
    const server = createServer((socket) => socket.destroy());
    server.listen(0, host, () => resolve(server));
  });
}

const portOf = (server: Server): number => (server.address() as { port: number }).port;

/** A port with nothing listening: bind, note the port, close. */
async function freePort(host: string): Promise<number> {
  const server = await listen(host);
  const port = portOf(server);
  await new Promise((r) => server.close(r));
  return port;
}

describe("tcp probe", () => {
  let v4: Server;
  let v6: Server;
  beforeAll(async () => {
    v4 = await listen("127.0.0.1");
    v6 = await listen("::1");
  });
  afterAll(async () => {
    await Promise.all([v4, v6].map((s) => new Promise((r) => s.close(r))));
  });

  it.each([
    ["127.0.0.1", () => portOf(v4)],
    ["::1", () => portOf(v6)],
  ])("measures the connect time to a listener on %s", async (host, port) => {
    const o = await tcpProbe.run({ host, port: port(), timeout_ms: 2000 }, allow);
    expect(o.success, JSON.stringify(o.error)).toBe(true);
    expect(o.detail).toMatchObject({ resolved_ip: host, port: port() });
    expect(o.detail?.connect_ms).toBeGreaterThan(0);
    expect(o.detail?.connect_ms).toBeLessThan(2000);
    expect(o.latency_ms).toBe(o.detail?.connect_ms);
  });

  it("resolves a name once and reports the address it used", async () => {
    const o = await tcpProbe.run(
      { host: "localhost", port: portOf(v4), timeout_ms: 2000, ip_version: 4 },
      allow,
    );
    expect(o.detail?.resolved_ip).toBe("127.0.0.1");
  });

  it("tells a refused port apart", async () => {
    const port = await freePort("127.0.0.1");
    const o = await tcpProbe.run({ host: "127.0.0.1", port, timeout_ms: 2000 }, allow);
    expect(o).toMatchObject({ success: false, latency_ms: null, error: { code: "connection_refused" } });
    expect(o.detail).toEqual({ resolved_ip: "127.0.0.1", port, connect_ms: null });
  });

  it("refuses loopback targets unless private targets are allowed", async () => {
    for (const host of ["127.0.0.1", "::1", "localhost", "::ffff:127.0.0.1"]) {
      const o = await tcpProbe.run({ host, port: portOf(v4), timeout_ms: 2000 }, { allowPrivate: false });
      expect(o, host).toMatchObject({ success: false, error: { code: "target_not_allowed" }, detail: null });
    }
  });

  describe("with nftables rules on loopback aliases (root)", () => {
    let port: number;
    let rules: { remove: () => void };
    beforeAll(async () => {
      port = await freePort("127.0.0.1");
      rules = nftTable([
        `out ip daddr 127.0.0.2 tcp dport ${port} drop`,
        `out ip daddr 127.0.0.3 tcp dport ${port} reject with icmp type host-unreachable`,
        `out ip daddr 127.0.0.4 tcp dport ${port} reject with icmp type net-unreachable`,
      ]);
    });
    afterAll(() => rules.remove());

    it("reports timeout when SYNs are dropped, at about timeout_ms", async () => {
      const started = performance.now();
      const o = await tcpProbe.run({ host: "127.0.0.2", port, timeout_ms: 300 }, allow);
      const elapsed = performance.now() - started;
      expect(o).toMatchObject({ success: false, error: { code: "timeout" } });
      expect(o.detail).toMatchObject({ resolved_ip: "127.0.0.2", connect_ms: null });
      expect(elapsed).toBeGreaterThanOrEqual(290);
      expect(elapsed).toBeLessThan(3000);
    });

    it("reports host_unreachable and network_unreachable from ICMP errors", async () => {
      const host = await tcpProbe.run({ host: "127.0.0.3", port, timeout_ms: 2000 }, allow);
      expect(host.error?.code).toBe("host_unreachable");
      const net = await tcpProbe.run({ host: "127.0.0.4", port, timeout_ms: 2000 }, allow);
      expect(net.error?.code).toBe("network_unreachable");
    });
  });
});
