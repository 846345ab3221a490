import { describe, expect, it } from "vitest";
import { dnsProbe } from "./dns.js";
import { queryTcp, queryUdp } from "./dns-transport.js";
import { describeNetError, errnoName } from "./net-error.js";
import { pingProbe } from "./ping.js";
import { toProbeFailure } from "./probe-failure.js";
import { tcpProbe } from "./tcp.js";
import { tracerouteProbe } from "./traceroute.js";

/*
 * Failures the kernel gives at once, driven for real on loopback: 127.255.255.255 is lo's broadcast
 * address (127.0.0.0/8), which a socket without SO_BROADCAST may not send to (EACCES) and TCP cannot reach
 * (ENETUNREACH). Nothing leaves the machine. Each must end as a result, never as an exception.
 */
const allow = { allowPrivate: true };
const BROADCAST = "127.255.255.255";
const exchange = { address: BROADCAST, family: 4 as const, port: 53, timeoutMs: 2000 };

describe("socket failures become results (loopback broadcast)", () => {
  it("dns over UDP: a broadcast server is invalid_target, in words", async () => {
    const o = await dnsProbe.run(
      { domain: "crash.test", record_type: "A", timeout_ms: 2000, server: `${BROADCAST}:53` },
      allow,
    );
    expect(o).toMatchObject({
      success: false,
      error: {
        code: "invalid_target",
        message: "127.255.255.255 is a broadcast address: the node may not send to it (connect EACCES)",
      },
    });
  });

  it("dns transports: UDP and TCP to a broadcast server reject with a ProbeFailure", async () => {
    await expect(queryUdp(Buffer.alloc(12), 1, exchange)).rejects.toMatchObject({
      name: "ProbeFailure",
      code: "invalid_target",
    });
    await expect(queryTcp(Buffer.alloc(12), 1, exchange)).rejects.toMatchObject({
      name: "ProbeFailure",
      code: "network_unreachable",
      message: "no route to the network of 127.255.255.255 (connect ENETUNREACH)",
    });
  });

  it("tcp: no route to the broadcast address", async () => {
    const o = await tcpProbe.run({ host: BROADCAST, port: 53, timeout_ms: 2000 }, allow);
    expect(o).toMatchObject({ success: false, error: { code: "network_unreachable" } });
    expect(o.detail).toEqual({ resolved_ip: BROADCAST, port: 53, connect_ms: null });
  });

  it("ping and traceroute: the raw socket's EACCES is the result's error, with the address", async () => {
    const ping = await pingProbe.run({ host: BROADCAST, count: 2, timeout_ms: 1000, interval_ms: 20 }, allow);
    expect(ping).toMatchObject({
      success: false,
      error: {
        code: "invalid_target",
        message: "127.255.255.255 is a broadcast address: the node may not send to it (send EACCES)",
      },
    });
    // Not one probe left the node: a failure, not a path of `*` hops that merely did not arrive.
    const trace = await tracerouteProbe.run(
      { host: BROADCAST, max_hops: 30, queries_per_hop: 3, timeout_ms: 1000 },
      allow,
    );
    expect(trace).toMatchObject({ success: false, error: { code: "invalid_target" } });
    expect(trace.detail).toEqual({ resolved_ip: BROADCAST, reached: false, hops: [] });
  });
});

describe("errno words", () => {
  const sys = (code: string, syscall: string, address?: string) =>
    Object.assign(new Error(`${syscall} ${code}`), { code, syscall, address });

  it.each([
    ["ENETUNREACH", "198.51.100.53", "network_unreachable", "no route to the network of 198.51.100.53"],
    ["EHOSTUNREACH", "198.51.100.53", "host_unreachable", "no route to host 198.51.100.53"],
    ["EADDRNOTAVAIL", "2001:db8::53", "ipv6_unavailable", "no IPv6 address to reach 2001:db8::53"],
    ["EADDRNOTAVAIL", "198.51.100.53", "probe_error", "no free local port"],
    ["EAFNOSUPPORT", "2001:db8::53", "ipv6_unavailable", "does not support IPv6"],
    ["EMFILE", "198.51.100.53", "resources_exhausted", "out of file descriptors"],
    ["ENFILE", "198.51.100.53", "resources_exhausted", "out of file descriptors"],
    ["ENOBUFS", "198.51.100.53", "resources_exhausted", "network buffer space"],
    ["EPERM", "198.51.100.53", "probe_error", "firewall does not let traffic to 198.51.100.53 out"],
  ])("%s to %s is %s", (errno, address, code, words) => {
    const failure = toProbeFailure(sys(errno, "connect", address));
    expect(failure.code).toBe(code);
    expect(failure.message).toContain(words);
    expect(failure.message).toMatch(new RegExp(`\\(connect ${errno}\\)$`));
  });

  it("keeps Node's own message where it is already plain (connection refused)", () => {
    const error = sys("ECONNREFUSED", "connect", "127.0.0.1");
    expect(toProbeFailure(error)).toMatchObject({ code: "connection_refused", message: error.message });
  });

  it("reads raw-socket errors, which carry strerror's text only", () => {
    expect(errnoName(new Error("Network is unreachable"))).toBe("ENETUNREACH");
    expect(describeNetError(new Error("Operation not permitted"), { syscall: "socket" })).toEqual({
      code: "icmp_unavailable",
      message: "the node may not open raw sockets (no CAP_NET_RAW) (socket EPERM)",
    });
    expect(
      describeNetError(new Error("Too many open files"), { target: "192.0.2.1", syscall: "socket" }),
    ).toMatchObject({ code: "resources_exhausted" });
    expect(describeNetError(new Error("something else"))).toBeNull();
  });
});
