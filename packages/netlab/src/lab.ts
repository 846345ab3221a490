import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  destroyLab,
  labDir,
  labPrefix,
  registerForCleanup,
  sweepLabs,
  unregisterForCleanup,
  writeOwner,
} from "./cleanup.js";
import type { Lab } from "./lab-handle.js";
import { startTargetServices } from "./services/launch.js";
import { assertRequirements, must, run, tool } from "./shell.js";
import {
  blackholePrefixes,
  extraAddresses,
  ifName,
  labAddresses,
  labLinks,
  labNodes,
  routesOf,
} from "./topology.js";

export const repoRoot = fileURLToPath(new URL("../../../", import.meta.url));

export interface LabOptions {
  /** Percentage of packets to the lossy address that r2 drops at random (default 10). */
  lossPercent?: number;
  /** Start HTTP/HTTPS/DNS/TCP services on t1 (default true). */
  services?: boolean;
  /** Survives its owner process (`pnpm netlab:up`); removed by `pnpm netlab:down`. */
  manual?: boolean;
}

export type { Lab } from "./lab-handle.js";

/** Builds the whole lab; on any failure it removes what it built and rethrows. */
export async function startLab(opts: LabOptions = {}): Promise<Lab> {
  assertRequirements();
  sweepLabs();
  const id = randomBytes(3).toString("hex");
  const lossPercent = opts.lossPercent ?? 10;
  writeOwner(id, { pid: process.pid, manual: opts.manual ?? false, started: new Date().toISOString() });
  if (!opts.manual) registerForCleanup(id);
  const ns = (node: string): string => `${labPrefix}${id}-${node}`;
  const ip = tool("ip");
  const lab: Lab = {
    id,
    dir: labDir(id),
    lossPercent,
    addresses: labAddresses,
    ns,
    clients: labNodes.filter((n) => n.role === "client").map((n) => n.name),
    exec: (node, file, args, o = {}) => run(ip, ["netns", "exec", ns(node), file, ...args], o),
    spawn: (node, file, args, env) =>
      spawn(ip, ["netns", "exec", ns(node), file, ...args], {
        cwd: repoRoot,
        env: env ?? process.env,
        stdio: ["pipe", "pipe", "pipe"],
      }),
    async destroy() {
      unregisterForCleanup(id);
      destroyLab(id);
    },
  };
  try {
    await buildNetwork(lab, lossPercent);
    if (opts.services ?? true) await startTargetServices(lab);
  } catch (err) {
    await lab.destroy();
    throw err;
  }
  return lab;
}

async function buildNetwork(lab: Lab, lossPercent: number): Promise<void> {
  const ip = tool("ip");
  const sysctl = tool("sysctl");
  await Promise.all(
    labNodes.map(async (node) => {
      await must(ip, ["netns", "add", lab.ns(node.name)]);
      const forward = node.role === "router" ? 1 : 0;
      // DAD off: addresses are usable at once instead of after ~1 s. ICMP rate limits off: traceroute and
      // its reference hit the same routers back to back, and a rate-limited answer would read as `*`.
      await must(ip, [
        "netns",
        "exec",
        lab.ns(node.name),
        sysctl,
        "-q",
        "-e",
        "-w",
        "net.ipv6.conf.all.accept_dad=0",
        "net.ipv6.conf.default.accept_dad=0",
        `net.ipv4.ip_forward=${forward}`,
        `net.ipv6.conf.all.forwarding=${forward}`,
        "net.ipv4.icmp_ratelimit=0",
        "net.ipv4.icmp_msgs_per_sec=100000",
        "net.ipv6.icmp.ratelimit=0",
      ]);
    }),
  );
  // Veths are created straight inside the namespaces, so the host namespace never sees one.
  const creates = new Map<string, string[]>();
  for (const l of labLinks) {
    const lines = creates.get(l.a) ?? [];
    lines.push(`link add ${ifName(l.b)} type veth peer name ${ifName(l.a)} netns ${lab.ns(l.b)}`);
    creates.set(l.a, lines);
  }
  for (const [node, lines] of creates) await must(ip, ["-n", lab.ns(node), "-batch", "-"], lines.join("\n"));
  await Promise.all(labNodes.map((n) => must(ip, ["-n", lab.ns(n.name), "-batch", "-"], configOf(n.name))));
  // Before the firewalls: t2 would drop the priming pings, and r2 some of them.
  await primeNeighbours(lab);
  await applyFirewalls(lab, lossPercent);
  for (const client of lab.clients) {
    // `ip netns exec` bind-mounts /etc/netns/<ns>/resolv.conf, so the system resolver inside a client is
    // the lab's DNS server and name-based probes never leave the lab.
    mkdirSync(join("/etc/netns", lab.ns(client)), { recursive: true });
    writeFileSync(
      join("/etc/netns", lab.ns(client), "resolv.conf"),
      `nameserver ${labAddresses.web4}\noptions timeout:1 attempts:2\n`,
    );
  }
}

/**
 * One ping across every link, both families, before anyone measures. The first IPv6 packet from a host
 * to a fresh neighbour was seen to wait ~1 s for neighbour discovery, which would land in the first
 * measured RTT; this also proves every link works before a test blames a probe.
 */
async function primeNeighbours(lab: Lab): Promise<void> {
  const ping = tool("ping");
  await Promise.all(
    labLinks.flatMap((l) =>
      [l.v4[1], l.v6[1]].map(async (addr) => {
        const r = await lab.exec(l.a, ping, ["-n", "-c", "1", "-W", "3", addr]);
        if (r.code !== 0) throw new Error(`lab link ${l.a}→${l.b} (${addr}) does not answer: ${r.stdout}`);
      }),
    ),
  );
}

/** `ip -batch` lines configuring one node: loopback, link addresses, routes, blackholes. */
function configOf(node: string): string {
  const lines = ["link set lo up"];
  for (const l of labLinks) {
    if (l.a !== node && l.b !== node) continue;
    const side = l.a === node ? 0 : 1;
    const dev = ifName(side === 0 ? l.b : l.a);
    lines.push(`addr add ${l.v4[side]}/${l.prefix4} dev ${dev}`);
    lines.push(`addr add ${l.v6[side]}/${l.prefix6} dev ${dev} nodad`);
    lines.push(`link set ${dev} up`);
  }
  for (const x of extraAddresses.filter((e) => e.node === node)) {
    lines.push(`addr add ${x.v4} dev ${ifName(x.peer)}`);
    // Deprecated (preferred_lft 0): still answers, but is never picked as a source address, so replies
    // from wildcard UDP sockets (the DNS server) leave from the address the client asked.
    lines.push(`addr add ${x.v6} dev ${ifName(x.peer)} nodad preferred_lft 0`);
  }
  for (const r of routesOf(node)) {
    // Batch lines take no `-6`; the family follows from the addresses (`::/0` for an IPv6 default).
    const to = r.to === "default" && r.family === 6 ? "::/0" : r.to;
    lines.push(`route add ${to} via ${r.via} dev ${r.dev}`);
  }
  for (const b of blackholePrefixes.filter((p) => p.router === node)) {
    lines.push(`route add blackhole ${b.v4}`);
    lines.push(`route add blackhole ${b.v6}`);
  }
  return lines.join("\n");
}

async function applyFirewalls(lab: Lab, lossPercent: number): Promise<void> {
  const nft = tool("nft");
  const ip = tool("ip");
  const lossy = `table inet vantage_lab {
  chain forward_filter {
    type filter hook forward priority 0; policy accept;
    ip daddr ${labAddresses.lossy4} numgen random mod 100 < ${lossPercent} drop
    ip6 daddr ${labAddresses.lossy6} numgen random mod 100 < ${lossPercent} drop
  }
}`;
  // ICMPv6 neighbour discovery must pass, so only echo and the error types are dropped.
  const noIcmp = `table inet vantage_lab {
  chain input_filter {
    type filter hook input priority 0; policy accept;
    icmp type echo-request drop
    icmpv6 type echo-request drop
  }
  chain output_filter {
    type filter hook output priority 0; policy accept;
    meta l4proto icmp drop
    icmpv6 type { echo-reply, destination-unreachable, time-exceeded, parameter-problem } drop
  }
}`;
  await must(ip, ["netns", "exec", lab.ns("r2"), nft, "-f", "-"], lossy);
  await must(ip, ["netns", "exec", lab.ns("t2"), nft, "-f", "-"], noIcmp);
}
