import type { Lab } from "./lab.js";
import { labAddresses, labLinks, routesOf } from "./topology.js";

/** The expected traceroute hop list from a client to an address behind r2, derived from the routes. */
export function expectedHops(client: string, target: string, family: 4 | 6): string[] {
  const hops: string[] = [];
  let node = client;
  for (let guard = 0; guard < 16; guard++) {
    const route = routesOf(node).find(
      (r) => r.family === family && (r.to === "default" || covers(r.to, target)),
    );
    if (!route) break;
    const link = labLinks.find((l) => (family === 4 ? l.v4 : l.v6).includes(route.via));
    if (!link) break;
    hops.push(route.via);
    node = (family === 4 ? link.v4 : link.v6).indexOf(route.via) === 0 ? link.a : link.b;
  }
  hops.push(target);
  return hops;
}

function covers(prefix: string, addr: string): boolean {
  const [net, len] = prefix.split("/");
  if (!net || !len) return false;
  if (!addr.includes(":")) {
    const toInt = (a: string): number => a.split(".").reduce((acc, o) => (acc << 8) | Number(o), 0) >>> 0;
    const mask = Number(len) === 0 ? 0 : (0xffffffff << (32 - Number(len))) >>> 0;
    return (toInt(net) & mask) >>> 0 === (toInt(addr) & mask) >>> 0;
  }
  // The lab's IPv6 prefixes are /64 written as their first groups followed by `::`.
  return addr.startsWith(net.replace(/::$/, ":"));
}

/** A printable summary of a running lab: the picture, namespaces, addresses and per-client paths. */
export function describeLab(lab: Lab): string {
  const lines = [
    `Vantage network lab ${lab.id} (namespaces ${lab.ns("*")})`,
    "",
    "  c1 (eu-west) ── r1 ──────────── r2 ── t1  web/dns/tcp 203.0.113.10  2001:db8:100::10",
    "                  │                │          lossy 203.0.113.11 (r2 drops N%)",
    "  c2 (us-east) ── r3               ├── t2  no ICMP 203.0.113.18  2001:db8:101::18",
    "                                   │     blackhole 203.0.113.96/28  2001:db8:dead::/64 (r2)",
    "  c3 (ap-south) ───────────────────┘",
    "",
    "links:",
  ];
  for (const l of labLinks) {
    lines.push(
      `  ${l.a.padEnd(3)} ${l.v4[0]}/${l.prefix4} ${l.v6[0]}  <->  ${l.b.padEnd(3)} ${l.v4[1]} ${l.v6[1]}`,
    );
  }
  lines.push("", `paths to ${labAddresses.web4} (traceroute hops):`);
  for (const c of lab.clients) lines.push(`  ${c}: ${expectedHops(c, labAddresses.web4, 4).join(" → ")}`);
  lines.push(`loss on the lossy path: ${lab.lossPercent}%`);
  lines.push("", "try:");
  lines.push(`  ip netns exec ${lab.ns("c2")} traceroute -n ${labAddresses.web4}`);
  lines.push(`  ip netns exec ${lab.ns("c1")} dig @${labAddresses.web4} www.${labAddresses.dnsZone} A`);
  lines.push(`  ip netns exec ${lab.ns("c3")} curl -sk https://www.${labAddresses.dnsZone}/`);
  return lines.join("\n");
}
