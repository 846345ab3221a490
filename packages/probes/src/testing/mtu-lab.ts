import { execFileSync } from "node:child_process";

/**
 * Three namespaces in a row, client — router — target, whose second link has a smaller MTU (1280): the
 * router answers a larger packet with DF set by "fragmentation needed" / "packet too big", as a tunnel or
 * PPPoE hop on a real path does. Addresses are TEST-NET and 2001:db8::/32; nothing leaves the namespaces.
 * Needs root and iproute2; the error says so rather than skipping. Removed by `remove()` and at exit.
 */
export interface MtuLab {
  client: string;
  router4: string;
  target4: string;
  target6: string;
  mtu: number;
  remove(): void;
}

export interface MtuLabOptions {
  mtu?: number;
  /**
   * The router sends no "fragmentation needed" / "packet too big" (dropped by nftables in its namespace),
   * as a filtering firewall on a real path does: too-big packets vanish.
   */
  silentRouter?: boolean;
}

const run = (args: string[]): void => {
  execFileSync("ip", args, { stdio: "pipe" });
};

export function mtuLab(tag: string, options: MtuLabOptions = {}): MtuLab {
  const mtu = options.mtu ?? 1280;
  const ns = (role: string) => `vp-${tag}-${role}-${process.pid}`;
  const [c, r, t] = [ns("c"), ns("r"), ns("t")];
  const remove = (): void => {
    process.off("exit", remove);
    for (const name of [c, r, t]) {
      try {
        run(["netns", "del", name]);
      } catch {
        // Already gone.
      }
    }
  };
  process.once("exit", remove);
  const inNs = (name: string, args: string[]) => run(["-n", name, ...args]);
  const sysctl = (name: string, settings: string[]) =>
    execFileSync("ip", ["netns", "exec", name, "sysctl", "-qw", ...settings], { stdio: "pipe" });
  try {
    for (const name of [c, r, t]) {
      run(["netns", "add", name]);
      inNs(name, ["link", "set", "lo", "up"]);
    }
    run(["link", "add", "v0", "netns", c, "type", "veth", "peer", "name", "v0", "netns", r]);
    run(["link", "add", "v1", "netns", r, "type", "veth", "peer", "name", "v1", "netns", t]);
    inNs(r, ["link", "set", "v1", "mtu", String(mtu)]);
    inNs(t, ["link", "set", "v1", "mtu", String(mtu)]);
    const addr = (name: string, dev: string, a: string) =>
      inNs(name, ["addr", "add", a, "dev", dev, "nodad"]);
    addr(c, "v0", "192.0.2.1/30");
    addr(c, "v0", "2001:db8:7a::1/64");
    addr(r, "v0", "192.0.2.2/30");
    addr(r, "v0", "2001:db8:7a::2/64");
    addr(r, "v1", "203.0.113.1/30");
    addr(r, "v1", "2001:db8:7b::1/64");
    addr(t, "v1", "203.0.113.2/30");
    addr(t, "v1", "2001:db8:7b::2/64");
    for (const [name, dev] of [
      [c, "v0"],
      [r, "v0"],
      [r, "v1"],
      [t, "v1"],
    ] as const)
      inNs(name, ["link", "set", dev, "up"]);
    inNs(c, ["route", "add", "default", "via", "192.0.2.2"]);
    inNs(c, ["-6", "route", "add", "default", "via", "2001:db8:7a::2"]);
    inNs(t, ["route", "add", "default", "via", "203.0.113.1"]);
    inNs(t, ["-6", "route", "add", "default", "via", "2001:db8:7b::1"]);
    // No rate limit on the router's ICMP errors: every too-big packet gets its answer.
    sysctl(r, [
      "net.ipv4.ip_forward=1",
      "net.ipv6.conf.all.forwarding=1",
      "net.ipv4.icmp_ratelimit=0",
      "net.ipv6.icmp.ratelimit=0",
    ]);
    if (options.silentRouter) {
      const rules = [
        "add table inet silent",
        "add chain inet silent out { type filter hook output priority 0; policy accept; }",
        "add rule inet silent out icmp type destination-unreachable drop",
        "add rule inet silent out icmpv6 type packet-too-big drop",
      ].join("\n");
      execFileSync("ip", ["netns", "exec", r, "nft", "-f", "-"], {
        input: rules,
        stdio: ["pipe", "pipe", "pipe"],
      });
    }
  } catch (error) {
    remove();
    throw new Error(`this test needs root and iproute2 (ip netns, veth): ${(error as Error).message}`);
  }
  return { client: c, router4: "192.0.2.2", target4: "203.0.113.2", target6: "2001:db8:7b::2", mtu, remove };
}
