import { isIP } from "node:net";
import { pastedHost } from "@vantage/protocol/pasted-host";
import { sql } from "kysely";
import { jsonb } from "../../db/json.js";
import type { MonitorType } from "../../db/tables/monitors.js";
import type { NodeResult, ProbesService } from "../probes/index.js";
import type { MonitorsContext } from "./context.js";

/** What one probe of the evidence found on one node. */
export interface EvidenceProbe {
  success: boolean;
  error: { code: string; message: string } | null;
  /** The probe's result detail (traceroute: its hops; dns: its answers), as the probe API shows it. */
  detail: Record<string, unknown> | null;
}

/** Per failing node: the path to the target and what the node's resolver said of its name. */
export interface NodeEvidence {
  node_id: string;
  host: string;
  traceroute: EvidenceProbe;
  /** null when the target is an IP address (nothing to resolve). */
  dns: EvidenceProbe | null;
}

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
 * Evidence on alert (issue #29 item 3): when a monitor goes down, each of the nodes whose run failed runs,
 * at once and in parallel, a traceroute to the target's host and (for a name) a DNS `A` query for it
 * through its own resolver, with the same target guard as any probe. The results go on the state change
 * (`monitor_state_changes.evidence`), where the notifier, which holds a down change back for at most 20 s
 * while they are pending, puts them in the alert event's `detail.evidence` and every channel's
 * message. A probe that cannot run is recorded with its error: evidence is never what keeps an alert back.
 */
export async function collectEvidence(
  ctx: MonitorsContext,
  probes: Pick<ProbesService, "plan" | "execute">,
  change: DownChange,
): Promise<NodeEvidence[]> {
  const m = await ctx.db
    .selectFrom("monitors")
    .select(["type", "target"])
    .where("id", "=", change.monitorId)
    .executeTakeFirst();
  if (!m) return [];
  const host = hostOf(m.type, m.target);
  const run = async (type: "traceroute" | "dns", nodeId: string, params: Record<string, unknown>) => {
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
  const nodes = change.failingNodes.slice(0, 5);
  const evidence = await Promise.all(
    nodes.map(async (nodeId) => {
      const [traceroute, dns] = await Promise.all([
        run("traceroute", nodeId, { max_hops: 30 }),
        isIP(host) ? Promise.resolve(null) : run("dns", nodeId, { record_type: "A" }),
      ]);
      return { node_id: nodeId, host, traceroute, dns };
    }),
  );
  await sql`update monitor_state_changes set evidence = ${jsonb(evidence)}
    where id = ${change.changeId}`.execute(ctx.db);
  return evidence;
}
