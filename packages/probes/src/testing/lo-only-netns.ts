import { execFileSync } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export interface LoOnlyNetns {
  name: string;
  /** Turns IPv6 off in the namespace (`disable_ipv6=1`, lo included) or back on. */
  setIpv6(enabled: boolean): void;
  remove(): void;
}

export interface LoOnlyOptions {
  /** /etc/hosts inside the namespace (`ip netns exec` mounts /etc/netns/<name>/hosts over it). */
  hosts?: string;
  /** /etc/resolv.conf inside the namespace; give an unroutable TEST-NET resolver so no query leaves. */
  resolvConf?: string;
}

function ip(args: string[]): void {
  execFileSync("ip", args, { stdio: "pipe" });
}

/**
 * A network namespace holding only `lo` (up): no route leaves it, so every address but loopback is
 * unreachable and nothing a test sends can reach another host. Removed on `remove()` and again at exit.
 * Needs root and iproute2; the error says so rather than skipping.
 */
export function loOnlyNetns(tag: string, options: LoOnlyOptions = {}): LoOnlyNetns {
  const name = `vp-${tag}-${process.pid}`;
  const etc = join("/etc/netns", name);
  try {
    ip(["netns", "add", name]);
    ip(["-n", name, "link", "set", "lo", "up"]);
  } catch (error) {
    throw new Error(`this test needs root and iproute2 (ip netns): ${(error as Error).message}`);
  }
  if (options.hosts !== undefined || options.resolvConf !== undefined) {
    mkdirSync(etc, { recursive: true });
    if (options.hosts !== undefined) writeFileSync(join(etc, "hosts"), options.hosts);
    if (options.resolvConf !== undefined) writeFileSync(join(etc, "resolv.conf"), options.resolvConf);
  }
  let removed = false;
  const remove = (): void => {
    if (removed) return;
    removed = true;
    process.off("exit", remove);
    try {
      ip(["netns", "del", name]);
    } catch {
      // Already gone.
    }
    rmSync(etc, { recursive: true, force: true });
  };
  process.once("exit", remove);
  const setIpv6 = (enabled: boolean): void => {
    const value = enabled ? "0" : "1";
    execFileSync(
      "ip",
      [
        "netns",
        "exec",
        name,
        "sysctl",
        "-qw",
        `net.ipv6.conf.all.disable_ipv6=${value}`,
        `net.ipv6.conf.lo.disable_ipv6=${value}`,
      ],
      { stdio: "pipe" },
    );
  };
  return { name, setIpv6, remove };
}
