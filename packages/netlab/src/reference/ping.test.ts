import { describe, expect, it } from "vitest";
import { parsePing } from "./ping.js";

// Captured from iputils 20221126 inside the lab (c1 → the lossy address, IPv6, a blackhole, no route).
const lossy = `PING 203.0.113.11 (203.0.113.11) 56(84) bytes of data.
64 bytes from 203.0.113.11: icmp_seq=2 ttl=62 time=0.281 ms
64 bytes from 203.0.113.11: icmp_seq=3 ttl=62 time=0.023 ms
64 bytes from 203.0.113.11: icmp_seq=4 ttl=62 time=0.009 ms
64 bytes from 203.0.113.11: icmp_seq=5 ttl=62 time=0.004 ms

--- 203.0.113.11 ping statistics ---
5 packets transmitted, 4 received, 20% packet loss, time 64ms
rtt min/avg/max/mdev = 0.004/0.079/0.281/0.116 ms
`;
const v6 = `PING 2001:db8:100::10(2001:db8:100::10) 56 data bytes
64 bytes from 2001:db8:100::10: icmp_seq=1 ttl=62 time=0.050 ms
64 bytes from 2001:db8:100::10: icmp_seq=2 ttl=62 time=0.059 ms
64 bytes from 2001:db8:100::10: icmp_seq=3 ttl=62 time=0.043 ms

--- 2001:db8:100::10 ping statistics ---
3 packets transmitted, 3 received, 0% packet loss, time 30ms
rtt min/avg/max/mdev = 0.043/0.050/0.059/0.006 ms
`;
const blackhole = `PING 203.0.113.99 (203.0.113.99) 56(84) bytes of data.

--- 203.0.113.99 ping statistics ---
2 packets transmitted, 0 received, 100% packet loss, time 13ms

`;
const unreachable = `PING 203.0.113.50 (203.0.113.50) 56(84) bytes of data.
From 192.0.2.2 icmp_seq=1 Destination Net Unreachable
From 192.0.2.2 icmp_seq=2 Destination Net Unreachable

--- 203.0.113.50 ping statistics ---
2 packets transmitted, 0 received, +2 errors, 100% packet loss, time 201ms
`;

describe("parsePing", () => {
  it("reads replies, counts and RTT statistics", () => {
    const r = parsePing(lossy);
    expect(r.target).toBe("203.0.113.11");
    expect(r).toMatchObject({ transmitted: 5, received: 4, lossPercent: 20, errors: 0 });
    expect(r.rtt).toEqual({ min: 0.004, avg: 0.079, max: 0.281, mdev: 0.116 });
    expect(r.replies.map((x) => x.seq)).toEqual([2, 3, 4, 5]);
    expect(r.replies[0]).toEqual({ from: "203.0.113.11", seq: 2, ttl: 62, timeMs: 0.281 });
  });

  it("reads IPv6 replies whose address contains colons", () => {
    const r = parsePing(v6);
    expect(r.target).toBe("2001:db8:100::10");
    expect(r.replies.map((x) => x.from)).toEqual(Array(3).fill("2001:db8:100::10"));
    expect(r.rtt?.avg).toBe(0.05);
  });

  it("reports total loss without RTTs, and ICMP errors", () => {
    expect(parsePing(blackhole)).toMatchObject({ transmitted: 2, received: 0, lossPercent: 100, rtt: null });
    expect(parsePing(unreachable)).toMatchObject({ received: 0, errors: 2, replies: [] });
  });

  it("refuses output without a summary", () => {
    expect(() => parsePing("ping: unknown host")).toThrow(/no ping summary/);
  });
});
