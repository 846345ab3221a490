import { inPrefix, ipv4ToNumber, ipv6ToBigInt } from "./ip-address.js";

/** Why an address is refused; stable strings, reported in `target_not_allowed` messages. */
export type BlockCategory =
  | "unspecified"
  | "loopback"
  | "private"
  | "link_local"
  | "cgnat"
  | "multicast"
  | "reserved"
  | "broadcast"
  | "documentation"
  | "benchmark"
  | "protocol_assignments"
  | "metadata"
  | "invalid";

export interface BlockedRange {
  cidr: string;
  category: BlockCategory;
}

/**
 * IANA special-purpose registries (RFC 6890 and successors) plus cloud metadata endpoints. Order matters:
 * the first match wins, so the narrow metadata entries sit before the ranges that contain them.
 */
export const blockedIpv4Ranges: readonly BlockedRange[] = [
  { cidr: "169.254.169.254/32", category: "metadata" }, // AWS/GCP/Azure/OpenStack instance metadata
  { cidr: "168.63.129.16/32", category: "metadata" }, // Azure wire server: a public-looking platform address
  { cidr: "100.100.100.200/32", category: "metadata" }, // Alibaba Cloud metadata (inside CGNAT)
  { cidr: "255.255.255.255/32", category: "broadcast" },
  { cidr: "0.0.0.0/8", category: "unspecified" },
  { cidr: "10.0.0.0/8", category: "private" },
  { cidr: "100.64.0.0/10", category: "cgnat" },
  { cidr: "127.0.0.0/8", category: "loopback" },
  { cidr: "169.254.0.0/16", category: "link_local" },
  { cidr: "172.16.0.0/12", category: "private" },
  { cidr: "192.0.0.0/24", category: "protocol_assignments" },
  { cidr: "192.0.2.0/24", category: "documentation" },
  { cidr: "192.88.99.0/24", category: "reserved" }, // deprecated 6to4 relay anycast
  { cidr: "192.168.0.0/16", category: "private" },
  { cidr: "198.18.0.0/15", category: "benchmark" },
  { cidr: "198.51.100.0/24", category: "documentation" },
  { cidr: "203.0.113.0/24", category: "documentation" },
  { cidr: "224.0.0.0/4", category: "multicast" },
  { cidr: "240.0.0.0/4", category: "reserved" },
];

/** IPv6 ranges refused outright; forms that embed an IPv4 address are handled in target-guard.ts. */
export const blockedIpv6Ranges: readonly BlockedRange[] = [
  { cidr: "::/128", category: "unspecified" },
  { cidr: "::1/128", category: "loopback" },
  { cidr: "fd00:ec2::254/128", category: "metadata" }, // AWS IMDS over IPv6
  { cidr: "64:ff9b:1::/48", category: "private" }, // local-use NAT64 (RFC 8215)
  { cidr: "100::/64", category: "reserved" }, // discard-only
  { cidr: "2001:2::/48", category: "benchmark" },
  { cidr: "2001:10::/28", category: "reserved" }, // ORCHID
  { cidr: "2001:20::/28", category: "reserved" }, // ORCHIDv2
  { cidr: "2001:db8::/32", category: "documentation" },
  { cidr: "3fff::/20", category: "documentation" }, // RFC 9637
  { cidr: "5f00::/16", category: "reserved" }, // SRv6 SIDs
  { cidr: "fc00::/7", category: "private" }, // unique local
  { cidr: "fe80::/10", category: "link_local" },
  { cidr: "fec0::/10", category: "private" }, // deprecated site-local
  { cidr: "ff00::/8", category: "multicast" },
  { cidr: "::/8", category: "reserved" }, // IETF reserved, after the embedded-IPv4 forms are unpacked
];

interface Compiled {
  base: bigint;
  prefix: number;
  range: BlockedRange;
}

function compile(ranges: readonly BlockedRange[], family: 4 | 6): Compiled[] {
  return ranges.map((range) => {
    const [addr = "", len = ""] = range.cidr.split("/");
    const base = family === 4 ? BigInt(ipv4ToNumber(addr) ?? Number.NaN) : ipv6ToBigInt(addr);
    if (base === null) throw new Error(`bad range ${range.cidr}`);
    return { base, prefix: Number(len), range };
  });
}

const v4 = compile(blockedIpv4Ranges, 4);
const v6 = compile(blockedIpv6Ranges, 6);

export function matchIpv4(value: number): BlockedRange | null {
  const n = BigInt(value);
  return v4.find((r) => inPrefix(n, r.base, r.prefix, 32))?.range ?? null;
}

export function matchIpv6(value: bigint): BlockedRange | null {
  return v6.find((r) => inPrefix(value, r.base, r.prefix, 128))?.range ?? null;
}
