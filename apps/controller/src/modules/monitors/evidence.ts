import { isIP } from "node:net";
import { pastedHost } from "@vantage/protocol/pasted-host";
import { sql } from "kysely";
import { jsonb } from "../../db/json.js";
import { STATE_CHANGES_CHANNEL } from "../../db/notify.js";
import type { MonitorType } from "../../db/tables/monitors.js";
import type { NodeResult, ProbesService } from "../probes/index.js";
import type { MonitorsContext } from "./context.js";
import type { LocatedNode } from "./locations.js";

/** What one probe of the evidence found on one node. */
export interface EvidenceProbe {
  success: boolean;
  error: { code: string; message: string } | null;
  /** The probe's result detail (traceroute: its hops; dns: its answers), as the probe API shows it. */
  detail: Record<string, unknown> | null;
}

/**
 * Per failing node: the path to the target and what the node's resolver said of its name. The path is an
 * mtr run where the node offers mtr, else a traceroute (an older agent): exactly one of the two is set.
 */
export interface NodeEvidence {
  node_id: string;
  host: string;
  /** The node's mtr to the host (per hop: loss and round-trip times over a few rounds); null: traceroute. */
  mtr: EvidenceProbe | null;
  /** The node's traceroute to the host, where it does not offer mtr; null when mtr ran. */
  traceroute: EvidenceProbe | null;
  /** null when the target is an IP address (nothing to resolve). */
  dns: EvidenceProbe | null;
}

/**
 * The evidence's mtr: 5 rounds 400 ms apart, each probe waiting at most 400 ms, 30 hops: about 2 s on the
 * node (the probe's budget is 4 × 400 + 400 ms), so the results arrive well inside the 20 s the notifier
 * holds a down change for, while five rounds still tell a lossy hop from a single lost probe.
 */
export const EVIDENCE_MTR = {
  mode: "icmp",
  rounds: 5,
  interval_ms: 400,
  timeout_ms: 400,
  max_hops: 30,
} as const;
/** The traceroute for nodes without mtr, as before mtr existed. */
export const EVIDENCE_TRACEROUTE = { max_hops: 30 } as const;

/** A monitor that went down at a slot, and the nodes whose runs failed there. */
export interface DownChange {
  changeId: string;
  monitorId: string;
  slot: Date;
  failingNodes: string[];
}

/** The host a monitor's probe reaches: the URL's host (http), the host of `host:port` (tcp), else the target. */
export function hostOf(type: MonitorType, target: string): string {
  if (type === "http") {
    try {
      return new URL(target).hostname.replace(/^\[(.*)\]$/, "$1");
    } catch {
      return target;
    }
  }
  if (type === "tcp") return pastedHost(target).host;
  return target;
}

const probeOf = (r: NodeResult | undefined): EvidenceProbe =>
  r
    ? { success: r.success, error: r.error, detail: r.detail }
    : { success: false, error: { code: "node_error", message: "no result" }, detail: null };

/**
 * Whether a node runs mtr for the evidence: only one that says so in its heartbeat's capabilities (agents
 * advertise `mtr` since it exists). An older agent, or a node not known online, gets a traceroute.
 */
export function offersMtr(
  online: readonly Pick<LocatedNode, "id" | "capabilities">[],
  nodeId: string,
): boolean {
  return online.find((n) => n.id === nodeId)?.capabilities.includes("mtr") ?? false;
}

/**
 * Evidence on alert (issue #29 item 3): when a monitor goes down, each of the nodes whose run failed runs,
 * at once and in parallel, an mtr to the target's host (a traceroute on a node without mtr, per `nodes`:
 * the online nodes and their capabilities; without it every node traces) and (for a name) a DNS `A` query
 * for it through its own resolver, with the same target guard as any probe. The results go on the state change
 * (`monitor_state_changes.evidence`), where the notifier, which holds a down change back for at most 20 s
 * while they are pending, puts them in the alert event's `detail.evidence` and every channel's
 * message. A probe that cannot run is recorded with its error: evidence is never what keeps an alert back.
 */
export async function collectEvidence(
  ctx: MonitorsContext,
  probes: Pick<ProbesService, "plan" | "execute">,
  change: DownChange,
  nodes?: { online(): Promise<Pick<LocatedNode, "id" | "capabilities">[]> },
): Promise<NodeEvidence[]> {
  const m = await ctx.db
    .selectFrom("monitors")
    .select(["type", "target"])
    .where("id", "=", change.monitorId)
    .executeTakeFirst();
  if (!m) return [];
  const host = hostOf(m.type, m.target);
  const run = async (type: "mtr" | "traceroute" | "dns", nodeId: string, params: Record<string, unknown>) => {
    try {
      const plan = probes.plan(type, { target: host, node_ids: [nodeId], params }, "evidence");
      const jobId = `evd.${change.changeId}.${type}.${nodeId}`;
      return probeOf((await probes.execute(plan, { count: 1, jobId }))[0]);
    } catch (err) {
      const e = err as { code?: string; message?: string };
      return {
        success: false,
        error: { code: e.code ?? "probe_error", message: String(e.message) },
        detail: null,
      };
    }
  };
  // Which nodes offer mtr: the live node set (no database); unreadable, every node traces.
  const online = nodes ? await nodes.online().catch(() => []) : [];
  const evidence: NodeEvidence[] = await Promise.all(
    change.failingNodes.slice(0, 5).map(async (nodeId) => {
      const mtr = offersMtr(online, nodeId);
      const [path, dns] = await Promise.all([
        mtr ? run("mtr", nodeId, { ...EVIDENCE_MTR }) : run("traceroute", nodeId, { ...EVIDENCE_TRACEROUTE }),
        isIP(host) ? Promise.resolve(null) : run("dns", nodeId, { record_type: "A" }),
      ]);
      return { node_id: nodeId, host, mtr: mtr ? path : null, traceroute: mtr ? null : path, dns };
    }),
  );
  // The change is ready for its alerts now: the notifiers hear so (one statement).
  await sql`with done as (
      update monitor_state_changes set evidence = ${jsonb(evidence)} where id = ${change.changeId} returning id)
    select pg_notify(${STATE_CHANGES_CHANNEL}, '') from done`.execute(ctx.db);
  return evidence;
}
