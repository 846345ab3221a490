import { describe, expect, it } from "vitest";
import { hopAddresses, parseTraceroute } from "./traceroute.js";

// Captured from traceroute 2.1.2 inside the lab, plus a hand-made line with two responders and `!H`.
const udp4 = `traceroute to 203.0.113.10 (203.0.113.10), 30 hops max, 60 byte packets
 1  192.0.2.6  1.236 ms  0.996 ms  0.985 ms
 2  198.51.100.2  0.981 ms  0.803 ms  0.797 ms
 3  198.51.100.6  0.792 ms  0.635 ms  0.628 ms
 4  203.0.113.10  0.624 ms  0.029 ms  0.005 ms
`;
const icmp6 = `traceroute to 2001:db8:101::18 (2001:db8:101::18), 3 hops max, 80 byte packets
 1  2001:db8:a1::2  0.059 ms  0.005 ms  0.005 ms
 2  2001:db8:b2::2  0.018 ms  0.006 ms  0.005 ms
 3  * * *
`;
const mixed = `traceroute to 203.0.113.50 (203.0.113.50), 5 hops max, 60 byte packets
 1  192.0.2.2  0.045 ms *  192.0.2.6  0.050 ms
 2  192.0.2.2  0.020 ms !N  0.011 ms !N *
`;

describe("parseTraceroute", () => {
  it("reads hops, responders and RTTs", () => {
    const r = parseTraceroute(udp4);
    expect(r).toMatchObject({ target: "203.0.113.10", maxHops: 30 });
    expect(hopAddresses(r)).toEqual(["192.0.2.6", "198.51.100.2", "198.51.100.6", "203.0.113.10"]);
    expect(r.hops[0]?.probes.map((p) => p.rttMs)).toEqual([1.236, 0.996, 0.985]);
  });

  it("reads IPv6 responders and silent hops", () => {
    const r = parseTraceroute(icmp6);
    expect(hopAddresses(r)).toEqual(["2001:db8:a1::2", "2001:db8:b2::2", null]);
    expect(r.hops[2]?.probes).toEqual(Array(3).fill({ ip: null, rttMs: null, annotation: null }));
  });

  it("attributes times to the address before them and keeps annotations", () => {
    const r = parseTraceroute(mixed);
    expect(r.hops[0]?.probes.map((p) => p.ip)).toEqual(["192.0.2.2", null, "192.0.2.6"]);
    expect(r.hops[1]?.probes.map((p) => p.annotation)).toEqual(["!N", "!N", null]);
  });
});
