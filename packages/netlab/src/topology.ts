/**
 * The lab's shape as data: nodes, point-to-point links with their addresses, and the special addresses
 * tests aim at. Everything else (namespace commands, routes, the docs picture) is derived from it, so a
 * new router or client is one entry here. Addresses are documentation ranges only: 192.0.2.0/24 for
 * client access links, 198.51.100.0/24 for the core, 203.0.113.0/24 for targets, 2001:db8::/32 for IPv6.
 */
export type NodeRole = "client" | "router" | "target";

export interface LabNodeSpec {
  name: string;
  role: NodeRole;
  /** Clients stand for agent regions. */
  region?: string;
  country?: string;
}

export interface LabLinkSpec {
  a: string;
  b: string;
  /** `a`'s and `b`'s IPv4 address with prefix length. */
  v4: [string, string];
  prefix4: number;
  v6: [string, string];
  prefix6: number;
}

export const labNodes: readonly LabNodeSpec[] = [
  { name: "c1", role: "client", region: "eu-west", country: "DE" },
  { name: "c2", role: "client", region: "us-east", country: "US" },
  { name: "c3", role: "client", region: "ap-south", country: "SG" },
  { name: "r1", role: "router" },
  { name: "r2", role: "router" },
  { name: "r3", role: "router" },
  { name: "t1", role: "target" },
  { name: "t2", role: "target" },
];

export const labLinks: readonly LabLinkSpec[] = [
  link("c1", "r1", "192.0.2.1", "192.0.2.2", 30, "2001:db8:a1::1", "2001:db8:a1::2"),
  link("c2", "r3", "192.0.2.5", "192.0.2.6", 30, "2001:db8:a2::1", "2001:db8:a2::2"),
  link("c3", "r2", "192.0.2.9", "192.0.2.10", 30, "2001:db8:a3::1", "2001:db8:a3::2"),
  link("r3", "r1", "198.51.100.1", "198.51.100.2", 30, "2001:db8:b1::1", "2001:db8:b1::2"),
  link("r1", "r2", "198.51.100.5", "198.51.100.6", 30, "2001:db8:b2::1", "2001:db8:b2::2"),
  link("r2", "t1", "203.0.113.9", "203.0.113.10", 29, "2001:db8:100::1", "2001:db8:100::10"),
  link("r2", "t2", "203.0.113.17", "203.0.113.18", 29, "2001:db8:101::1", "2001:db8:101::18"),
];

/** The addresses tests and benchmarks aim at. */
export const labAddresses = {
  /** t1: HTTP 80, HTTPS 443, DNS 53 (udp+tcp), TCP listener 7000; nothing on 7999 (refused). */
  web4: "203.0.113.10",
  web6: "2001:db8:100::10",
  /** A second address of t1 whose packets r2 drops at random (the lossy path). */
  lossy4: "203.0.113.11",
  lossy6: "2001:db8:100::11",
  /** t2 drops ICMP echo in and every ICMP error out: ping fails, traceroute ends in `*`. */
  noIcmp4: "203.0.113.18",
  noIcmp6: "2001:db8:101::18",
  /** r2 routes this prefix to a blackhole: packets vanish without an ICMP answer. */
  blackhole4: "203.0.113.99",
  blackhole6: "2001:db8:dead::99",
  dnsZone: "vantage.test",
  tcpOpenPort: 7000,
  tcpClosedPort: 7999,
} as const;

/** Stub prefixes that a router owns without a link (r2 discards them). */
export const blackholePrefixes = [{ router: "r2", v4: "203.0.113.96/28", v6: "2001:db8:dead::/64" }] as const;

/** Secondary addresses on a node's link interface (`peer` names the other end of that link). */
export const extraAddresses = [
  { node: "t1", peer: "r2", v4: `${labAddresses.lossy4}/29`, v6: `${labAddresses.lossy6}/64` },
] as const;

function link(
  a: string,
  b: string,
  a4: string,
  b4: string,
  prefix4: number,
  a6: string,
  b6: string,
): LabLinkSpec {
  return { a, b, v4: [a4, b4], prefix4, v6: [a6, b6], prefix6: 64 };
}

/** Interface name inside `node` of the link towards `peer` (names are per namespace, so they repeat). */
export function ifName(peer: string): string {
  return `to-${peer}`;
}

export interface Route {
  /** `default` or a prefix. */
  to: string;
  via: string;
  dev: string;
  family: 4 | 6;
}

/** Network prefix of an address with a prefix length (`192.0.2.5`, 30 → `192.0.2.4/30`). */
export function networkOf(addr: string, prefix: number, family: 4 | 6): string {
  if (family === 4) {
    const n = addr.split(".").reduce((acc, o) => (acc << 8) | Number(o), 0) >>> 0;
    const mask = prefix === 0 ? 0 : (0xffffffff << (32 - prefix)) >>> 0;
    const net = (n & mask) >>> 0;
    return `${[24, 16, 8, 0].map((s) => (net >>> s) & 255).join(".")}/${prefix}`;
  }
  // The lab's IPv6 link prefixes are all /64 and written with the first four groups explicit or `::`.
  const head = addr.split("::")[0] ?? "";
  const groups = head.split(":").slice(0, 4);
  return `${groups.join(":")}::/${prefix}`;
}

function neighbours(node: string): { peer: string; link: LabLinkSpec; side: 0 | 1 }[] {
  const out: { peer: string; link: LabLinkSpec; side: 0 | 1 }[] = [];
  for (const l of labLinks) {
    if (l.a === node) out.push({ peer: l.b, link: l, side: 0 });
    else if (l.b === node) out.push({ peer: l.a, link: l, side: 1 });
  }
  return out;
}

/** First hop from `from` towards `to` on a shortest path (breadth-first search over the links). */
function firstHop(from: string, to: string): string | null {
  const prev = new Map<string, string>([[from, from]]);
  const queue = [from];
  while (queue.length > 0) {
    const cur = queue.shift()!;
    if (cur === to) break;
    for (const { peer } of neighbours(cur)) {
      if (prev.has(peer)) continue;
      prev.set(peer, cur);
      queue.push(peer);
    }
  }
  if (!prev.has(to)) return null;
  let step = to;
  while (prev.get(step) !== from) step = prev.get(step)!;
  return step;
}

/**
 * Static routes of one node: stubs (clients, targets) get a default route to their only neighbour;
 * routers get one route per prefix they are not attached to, towards the next router on a shortest path.
 */
export function routesOf(node: string): Route[] {
  const spec = labNodes.find((n) => n.name === node);
  if (!spec) throw new Error(`unknown lab node ${node}`);
  const mine = neighbours(node);
  const gateway = (peer: string, family: 4 | 6): string => {
    const n = mine.find((m) => m.peer === peer)!;
    const other = n.side === 0 ? 1 : 0;
    return (family === 4 ? n.link.v4 : n.link.v6)[other]!;
  };
  if (spec.role !== "router") {
    const up = mine[0];
    if (!up) return [];
    return ([4, 6] as const).map((family) => ({
      to: "default",
      via: gateway(up.peer, family),
      dev: ifName(up.peer),
      family,
    }));
  }
  const attached = new Set(mine.map((m) => m.link));
  const targets: { owner: string; v4: string; v6: string }[] = [
    ...labLinks
      .filter((l) => !attached.has(l))
      .map((l) => ({
        owner: l.a,
        v4: networkOf(l.v4[0], l.prefix4, 4),
        v6: networkOf(l.v6[0], l.prefix6, 6),
      })),
    ...blackholePrefixes
      .filter((b) => b.router !== node)
      .map((b) => ({ owner: b.router, v4: b.v4, v6: b.v6 })),
  ];
  const routes: Route[] = [];
  for (const t of targets) {
    // The lab is a tree, so heading for either end of a foreign link takes the same first hop.
    const hop = firstHop(node, t.owner);
    if (!hop) continue;
    routes.push({ to: t.v4, via: gateway(hop, 4), dev: ifName(hop), family: 4 });
    routes.push({ to: t.v6, via: gateway(hop, 6), dev: ifName(hop), family: 6 });
  }
  return routes;
}
