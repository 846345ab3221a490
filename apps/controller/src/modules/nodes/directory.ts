import type { Kysely, Selectable } from "kysely";
import type { Database } from "../../db/schema.js";
import type { NodesTable } from "../../db/tables/nodes.js";

/** What the controller knows about one node, for the node list and for picking nodes. */
export interface NodeState {
  id: string;
  name: string;
  country: string;
  region: string;
  provider: string;
  version: string;
  capabilities: string[];
  runningJobs: number;
  maxJobs: number;
  /** Epoch ms of the last heartbeat. */
  lastSeen: number;
  draining: boolean;
}

/**
 * The node directory the probe module reads. The presence role keeps it in memory (fed by heartbeats); a
 * controller without that role reads the `nodes` table instead (cached briefly).
 */
export interface NodeDirectory {
  /**
   * Every known node. The same array comes back until something changes, so readers may cache what they
   * derive from it by identity; it is shared: never modify it.
   */
  list(): Promise<readonly NodeState[]>;
  /** Jobs this controller has sent to a node and not yet seen answered; counted into its load. */
  reserve(nodeId: string): void;
  release(nodeId: string): void;
  pending(nodeId: string): number;
}

export function isOnline(node: NodeState, offlineAfterMs: number, now = Date.now()): boolean {
  return !node.draining && now - node.lastSeen <= offlineAfterMs;
}

/** Load as a fraction of capacity, counting jobs this controller has in flight there. */
export function loadOf(node: NodeState, pending: number): number {
  return (node.runningJobs + pending) / Math.max(1, node.maxJobs);
}

export function rowToNodeState(r: NodeRow): NodeState {
  return {
    id: r.id,
    name: r.name,
    country: r.country,
    region: r.region,
    provider: r.provider,
    version: r.version,
    capabilities: Array.isArray(r.capabilities) ? r.capabilities : [],
    runningJobs: r.running_jobs,
    maxJobs: r.max_jobs,
    lastSeen: new Date(r.last_seen).getTime(),
    draining: r.draining,
  };
}

/** A `nodes` row as Kysely selects it. */
export type NodeRow = Selectable<NodesTable>;

export async function readNodeRows(db: Kysely<Database>): Promise<NodeState[]> {
  const rows = await db.selectFrom("nodes").selectAll().orderBy("id").execute();
  return rows.map(rowToNodeState);
}

/** Pending-job counts per node, shared by both directory kinds. */
export class PendingJobs {
  private readonly counts = new Map<string, number>();
  reserve(id: string): void {
    this.counts.set(id, (this.counts.get(id) ?? 0) + 1);
  }
  release(id: string): void {
    const n = (this.counts.get(id) ?? 0) - 1;
    if (n > 0) this.counts.set(id, n);
    else this.counts.delete(id);
  }
  pending(id: string): number {
    return this.counts.get(id) ?? 0;
  }
}

/** A directory over the `nodes` table, for controllers that do not run the presence role. */
export function dbNodeDirectory(db: Kysely<Database>, cacheMs = 1000): NodeDirectory {
  const jobs = new PendingJobs();
  let cached: { at: number; nodes: Promise<NodeState[]> } | undefined;
  return {
    list() {
      const now = Date.now();
      if (!cached || now - cached.at > cacheMs) {
        const nodes = readNodeRows(db);
        cached = { at: now, nodes };
        nodes.catch(() => {
          cached = undefined;
        });
      }
      return cached.nodes;
    },
    reserve: (id) => jobs.reserve(id),
    release: (id) => jobs.release(id),
    pending: (id) => jobs.pending(id),
  };
}
