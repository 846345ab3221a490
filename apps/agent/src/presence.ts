import { readFileSync } from "node:fs";
import { availableParallelism, loadavg, networkInterfaces } from "node:os";
import { type Heartbeat, PROTOCOL_VERSION } from "@vantage/protocol";
import type { AgentSettings } from "./config.js";

type Capability = Heartbeat["capabilities"][number];

/** Set by apps/agent/build.mjs in the bundle, which has no package.json beside it. */
declare const __VANTAGE_AGENT_VERSION__: string | undefined;

/** The agent's release, from apps/agent/package.json (read once; the bundle has it built in). */
export const AGENT_VERSION: string = (() => {
  if (typeof __VANTAGE_AGENT_VERSION__ === "string") return __VANTAGE_AGENT_VERSION__;
  const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as {
    version?: unknown;
  };
  return typeof pkg.version === "string" ? pkg.version : "0.0.0";
})();

/** Linux: CAP_NET_RAW (bit 13) in the effective set is what opening a raw ICMP socket takes. */
export function canOpenRawSockets(statusText?: string): boolean {
  let text = statusText;
  if (text === undefined) {
    try {
      text = readFileSync("/proc/self/status", "utf8");
    } catch {
      return process.getuid?.() === 0;
    }
  }
  const m = /^CapEff:\s*([0-9a-f]+)$/m.exec(text);
  if (!m) return false;
  return (BigInt(`0x${m[1]}`) & (1n << 13n)) !== 0n;
}

type Interfaces = ReturnType<typeof networkInterfaces>;

/**
 * IPv6 counts when the host has a global unicast address (2000::/3), the only kind that reaches the
 * Internet. Loopback counts only when private targets are allowed (tests and private deployments probe
 * `::1`); otherwise every host would claim IPv6 and get IPv6 jobs it cannot serve.
 */
export function hasIpv6(allowPrivate: boolean, interfaces: Interfaces = networkInterfaces()): boolean {
  for (const addrs of Object.values(interfaces)) {
    for (const a of addrs ?? []) {
      if (a.family !== "IPv6") continue;
      if (a.internal) {
        if (allowPrivate) return true;
        continue;
      }
      const first = Number.parseInt(a.address.split(":")[0] ?? "", 16);
      if (first >= 0x2000 && first <= 0x3fff) return true;
    }
  }
  return false;
}

/** What the last readable list of interfaces said about IPv6 (see `detectCapabilities`). */
let lastIpv6: boolean | undefined;

/**
 * The node's capabilities for a heartbeat. Reading the interfaces needs a file descriptor: when none is
 * left (EMFILE under a burst of probes) the last answer stands, so the heartbeat still goes out and the
 * node does not drop offline for the length of the burst.
 */
export function detectCapabilities(
  allowPrivate: boolean,
  probe: { icmp?: boolean; interfaces?: Interfaces | (() => Interfaces) } = {},
): Capability[] {
  const icmp = probe.icmp ?? canOpenRawSockets();
  const caps: Capability[] = ["ipv4"];
  const given = probe.interfaces;
  try {
    lastIpv6 = hasIpv6(allowPrivate, typeof given === "function" ? given() : (given ?? networkInterfaces()));
  } catch {
    // Kept from the last heartbeat (false before any).
  }
  if (lastIpv6) caps.push("ipv6");
  caps.push("http", "dns", "tcp");
  // ping and traceroute send ICMP/raw packets: without the capability they could only fail.
  if (icmp) caps.push("icmp", "ping", "traceroute", "mtr");
  return caps;
}

export function buildHeartbeat(
  settings: AgentSettings,
  state: {
    running: number;
    draining: boolean;
    icmp: boolean;
    crashedJobs?: readonly string[] | undefined;
    signingKey?: string | undefined;
  },
): Heartbeat {
  const cpus = Math.max(1, availableParallelism());
  return {
    v: PROTOCOL_VERSION,
    node: {
      id: settings.VANTAGE_NODE_ID,
      name: settings.VANTAGE_NODE_NAME,
      country: settings.VANTAGE_NODE_COUNTRY,
      region: settings.VANTAGE_NODE_REGION,
      provider: settings.VANTAGE_NODE_PROVIDER,
      ...(settings.VANTAGE_NODE_ASN === undefined ? {} : { asn: settings.VANTAGE_NODE_ASN }),
      ...(settings.VANTAGE_NODE_TAGS === undefined ? {} : { tags: settings.VANTAGE_NODE_TAGS }),
    },
    version: AGENT_VERSION,
    capabilities: detectCapabilities(settings.VANTAGE_ALLOW_PRIVATE_TARGETS, { icmp: state.icmp }),
    running_jobs: state.running,
    max_jobs: settings.VANTAGE_AGENT_CONCURRENCY,
    load: Math.round(((loadavg()[0] ?? 0) / cpus) * 1000) / 1000,
    sent_at: new Date().toISOString(),
    draining: state.draining,
    ...(state.signingKey ? { signing_key: state.signingKey } : {}),
    ...(state.crashedJobs ? { crashed_jobs: [...state.crashedJobs] } : {}),
  };
}

export interface Presence {
  /**
   * Publishes one heartbeat now (the final one passes `draining: true`; a crash notice also the ids of the
   * jobs in flight).
   */
  beat(draining?: boolean, crashedJobs?: readonly string[]): void;
  stop(): void;
}

/** Publishes a heartbeat at once, then every `VANTAGE_HEARTBEAT_MS`. */
export function startPresence(
  settings: AgentSettings,
  deps: {
    publish: (hb: Heartbeat) => void;
    running: () => number;
    signingKey?: string | undefined;
    onError?: (err: unknown) => void;
  },
): Presence {
  const icmp = canOpenRawSockets();
  let draining = false;
  const beat = (drainingNow?: boolean, crashedJobs?: readonly string[]) => {
    if (drainingNow) draining = true;
    try {
      deps.publish(
        buildHeartbeat(settings, {
          running: deps.running(),
          draining,
          icmp,
          crashedJobs,
          signingKey: deps.signingKey,
        }),
      );
    } catch (err) {
      deps.onError?.(err);
    }
  };
  beat();
  const timer = setInterval(beat, settings.VANTAGE_HEARTBEAT_MS);
  return {
    beat,
    stop: () => clearInterval(timer),
  };
}
