import {
  type Heartbeat,
  heartbeatSchema,
  PROTOCOL_VERSION,
  subjects,
} from "../../packages/protocol/src/index.js";
import { connectNats } from "../../packages/transport/src/nats.js";

/**
 * Test-only: many simulated agents in one process, for `pnpm bench:nodes`. Each identity publishes the real
 * heartbeat message (checked against the protocol's schema at start) on its own real subject
 * (`probe.v1.node.<id>.hb`) over a real nats-server, every SIM_HEARTBEAT_MS, the identities' phases spread
 * evenly over the interval as independently started agents' would be. It serves no jobs.
 *
 * What differs from real agents: the identities share SIM_CONNECTIONS connections under one nkey user that
 * may publish every heartbeat subject (a real agent's credentials allow only its own), so the nats-server
 * holds a handful of connections instead of one per node. The controller sees the same stream of messages.
 *
 * Driven over the IPC channel of its parent (`fork`/`spawn` with "ipc"):
 * - child → parent `{type: "ready", nodes}` once every identity has sent its first heartbeat;
 * - parent → child `{type: "stop", ids}`: those identities stop at once, without a draining heartbeat (a
 *   crash or a cut link); the answer `{type: "stopped", lastBeat: {id: epoch ms}}` says when each sent its
 *   last heartbeat;
 * - parent → child `{type: "stats"}` → `{type: "stats", sent, stopped}`.
 * Environment: NATS_URL, NATS_NKEY_SEED_FILE, SIM_NODES (default 10,000), SIM_HEARTBEAT_MS (5000),
 * SIM_CONNECTIONS (8), SIM_PREFIX (`sim`).
 */

export type SimRequest = { type: "stop"; ids: string[] } | { type: "stats" };
export type SimMessage =
  | { type: "ready"; nodes: number }
  | { type: "stopped"; lastBeat: Record<string, number> }
  | { type: "stats"; sent: number; stopped: number };

const countries = [
  ["DE", "eu-central"],
  ["FR", "eu-west"],
  ["GB", "eu-west"],
  ["NL", "eu-west"],
  ["PL", "eu-central"],
  ["SE", "eu-north"],
  ["FI", "eu-north"],
  ["US", "us-east"],
  ["US", "us-west"],
  ["CA", "us-east"],
  ["BR", "sa-east"],
  ["AR", "sa-east"],
  ["JP", "ap-northeast"],
  ["KR", "ap-northeast"],
  ["SG", "ap-southeast"],
  ["IN", "ap-south"],
  ["AU", "ap-southeast"],
  ["ZA", "af-south"],
  ["AE", "me-central"],
  ["CN", "ap-east"],
] as const;
const providers = ["hetzner", "ovh", "aws", "gcp", "azure", "digitalocean", "vultr", "linode", "residential"];

/** Node `i` of `prefix`: a spread of countries, regions, providers and capabilities, stable per index. */
export function simNodeId(prefix: string, i: number): string {
  return `${prefix}-${String(i).padStart(5, "0")}`;
}

function heartbeatOf(prefix: string, i: number): Heartbeat {
  const [country, region] = countries[i % countries.length]!;
  const caps: Heartbeat["capabilities"] = ["ipv4"];
  if (i % 3 === 0) caps.push("ipv6");
  caps.push("http", "dns", "tcp");
  if (i % 2 === 0) caps.push("icmp", "ping", "traceroute");
  return {
    v: PROTOCOL_VERSION,
    node: {
      id: simNodeId(prefix, i),
      name: `Simulated ${country} ${i}`,
      country,
      region,
      provider: providers[Math.floor(i / countries.length) % providers.length]!,
    },
    version: "0.1.0-sim",
    capabilities: caps,
    running_jobs: 0,
    max_jobs: 10,
    load: 0,
    sent_at: "",
    draining: false,
  };
}

async function main(): Promise<void> {
  const count = Number(process.env.SIM_NODES ?? 10_000);
  const intervalMs = Number(process.env.SIM_HEARTBEAT_MS ?? 5000);
  const connections = Math.max(1, Number(process.env.SIM_CONNECTIONS ?? 8));
  const prefix = process.env.SIM_PREFIX ?? "sim";
  const servers = process.env.NATS_URL;
  if (!servers) throw new Error("NATS_URL is required");
  const send = (m: SimMessage) => process.send?.(m);

  const ncs: Awaited<ReturnType<typeof connectNats>>[] = [];
  for (let c = 0; c < connections; c++) {
    ncs.push(
      await connectNats({ servers, name: `node-sim-${c}`, nkeySeedFile: process.env.NATS_NKEY_SEED_FILE }),
    );
  }
  const nodes = Array.from({ length: count }, (_, i) => ({
    i,
    hb: heartbeatOf(prefix, i),
    subject: subjects.heartbeat(simNodeId(prefix, i)),
    nc: ncs[i % connections]!,
    lastBeat: 0,
    stopped: false,
  }));
  heartbeatSchema.parse(nodes[0]!.hb); // the real message, or the bench measures nothing
  const encoder = new TextEncoder();
  let sent = 0;
  let stoppedCount = 0;

  // A tick every 20 ms sends the identities whose phase (i / count of the interval) has come round.
  const tickMs = 20;
  const start = performance.now();
  let cursor = 0; // identities sent so far, over all rounds: identity cursor % count is the next one
  let ready = false;
  const tick = () => {
    const due = Math.floor(((performance.now() - start) / intervalMs) * count);
    const now = Date.now();
    const sentAt = new Date(now).toISOString();
    for (; cursor < due; cursor++) {
      const n = nodes[cursor % count]!;
      if (n.stopped) continue;
      n.hb.sent_at = sentAt;
      n.nc.publish(n.subject, encoder.encode(JSON.stringify(n.hb)));
      n.lastBeat = now;
      sent++;
    }
    if (!ready && cursor >= count) {
      ready = true;
      send({ type: "ready", nodes: count });
    }
  };
  const timer = setInterval(tick, tickMs);

  process.on("message", (m: SimRequest) => {
    if (m.type === "stop") {
      const lastBeat: Record<string, number> = {};
      const wanted = new Set(m.ids);
      for (const n of nodes) {
        if (!wanted.has(n.hb.node.id) || n.stopped) continue;
        n.stopped = true;
        stoppedCount++;
        lastBeat[n.hb.node.id] = n.lastBeat;
      }
      send({ type: "stopped", lastBeat });
    } else if (m.type === "stats") {
      send({ type: "stats", sent, stopped: stoppedCount });
    }
  });
  const shutdown = async () => {
    clearInterval(timer);
    await Promise.all(ncs.map((nc) => nc.close()));
    process.exit(0);
  };
  process.on("SIGTERM", () => void shutdown());
  process.on("disconnect", () => void shutdown());
}

if (process.argv[1] && new URL(import.meta.url).pathname === process.argv[1]) {
  main().catch((err: unknown) => {
    process.stderr.write(`node-sim: ${String(err)}\n`);
    process.exit(1);
  });
}
