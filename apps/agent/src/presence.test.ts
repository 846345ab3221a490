import type { networkInterfaces } from "node:os";
import { heartbeatSchema } from "@vantage/protocol";
import { describe, expect, it } from "vitest";
import type { AgentSettings } from "./config.js";
import { AGENT_VERSION, buildHeartbeat, canOpenRawSockets, detectCapabilities, hasIpv6 } from "./presence.js";

type Ifaces = ReturnType<typeof networkInterfaces>;
const v6 = (address: string, internal = false) => ({
  address,
  netmask: "ffff:ffff:ffff:ffff::",
  family: "IPv6" as const,
  mac: "00:00:00:00:00:00",
  internal,
  cidr: `${address}/64`,
  scopeid: 0,
});

describe("presence", () => {
  it("sees CAP_NET_RAW in the effective capability set", () => {
    expect(canOpenRawSockets("Name:\tnode\nCapEff:\t000001ffffffffff\n")).toBe(true);
    expect(canOpenRawSockets("CapEff:\t0000000000002000\n")).toBe(true);
    expect(canOpenRawSockets("CapEff:\t0000000000000000\n")).toBe(false);
    expect(canOpenRawSockets("nothing here")).toBe(false);
  });

  it("claims IPv6 for a global address, for loopback only when private targets are allowed", () => {
    const lo: Ifaces = { lo: [v6("::1", true)] };
    const linkLocal: Ifaces = { lo: [v6("::1", true)], eth0: [v6("fe80::1"), v6("fd00::5")] };
    const global: Ifaces = { eth0: [v6("fe80::1"), v6("2a01:4f8::1")] };
    expect(hasIpv6(false, lo)).toBe(false);
    expect(hasIpv6(true, lo)).toBe(true);
    expect(hasIpv6(false, linkLocal)).toBe(false);
    expect(hasIpv6(false, global)).toBe(true);
    expect(detectCapabilities(false, { icmp: false, interfaces: global })).toEqual([
      "ipv4",
      "ipv6",
      "http",
      "dns",
      "tcp",
    ]);
    expect(detectCapabilities(false, { icmp: true, interfaces: {} })).toEqual([
      "ipv4",
      "http",
      "dns",
      "tcp",
      "icmp",
      "ping",
      "traceroute",
      "mtr",
    ]);
  });

  it("keeps the last IPv6 answer when the interfaces cannot be read (no file descriptor left)", () => {
    const global: Ifaces = { eth0: [v6("2a01:4f8::1")] };
    const emfile = () => {
      throw Object.assign(new Error("Unknown system error 24"), {
        errno: 24,
        syscall: "uv_interface_addresses",
      });
    };
    expect(detectCapabilities(false, { icmp: false, interfaces: global })).toContain("ipv6");
    expect(detectCapabilities(false, { icmp: false, interfaces: emfile })).toContain("ipv6");
    expect(detectCapabilities(false, { icmp: false, interfaces: {} })).not.toContain("ipv6");
    expect(detectCapabilities(false, { icmp: false, interfaces: emfile })).not.toContain("ipv6");
  });

  it("builds a heartbeat the protocol schema accepts", () => {
    const settings: AgentSettings = {
      VANTAGE_NODE_ID: "n1",
      VANTAGE_NODE_NAME: "Node 1",
      VANTAGE_NODE_COUNTRY: "FR",
      VANTAGE_NODE_REGION: "eu-west",
      VANTAGE_NODE_PROVIDER: "ovh",
      VANTAGE_AGENT_CONCURRENCY: 8,
      VANTAGE_HEARTBEAT_MS: 5000,
      VANTAGE_ALLOW_PRIVATE_TARGETS: false,
    };
    const hb = buildHeartbeat(settings, { running: 3, draining: false, icmp: true });
    expect(heartbeatSchema.parse(hb)).toEqual(hb);
    expect(hb).toMatchObject({ version: AGENT_VERSION, running_jobs: 3, max_jobs: 8, draining: false });
    expect(AGENT_VERSION).toBe("0.1.0");
    expect(hb.load).toBeGreaterThanOrEqual(0);
  });

  it("carries the node's network and tags when set, which the protocol schema accepts", () => {
    const settings: AgentSettings = {
      VANTAGE_NODE_ID: "n1",
      VANTAGE_NODE_NAME: "Node 1",
      VANTAGE_NODE_COUNTRY: "FR",
      VANTAGE_NODE_REGION: "eu-west",
      VANTAGE_NODE_PROVIDER: "ovh",
      VANTAGE_NODE_ASN: 16276,
      VANTAGE_NODE_TAGS: ["eyeball", "home"],
      VANTAGE_AGENT_CONCURRENCY: 8,
      VANTAGE_HEARTBEAT_MS: 5000,
      VANTAGE_ALLOW_PRIVATE_TARGETS: false,
    };
    const hb = buildHeartbeat(settings, { running: 0, draining: false, icmp: false });
    expect(heartbeatSchema.parse(hb)).toEqual(hb);
    expect(hb.node).toMatchObject({ asn: 16276, tags: ["eyeball", "home"] });
    expect(heartbeatSchema.safeParse({ ...hb, node: { ...hb.node, tags: ["Bad Tag"] } }).success).toBe(false);
  });
});
