import type { Kysely, Selectable } from "kysely";
import type { Logger } from "pino";
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
  /**
   * Epoch ms at which a probe found the node offline (`NodeDirectory.markOffline`): offline from then on,
   * until a heartbeat received after it.
   */
  markedOfflineAt?: number;
}

/**
 * The node directory the probe module reads. The presence role keeps it in memory (fed by heartbeats); a
 * controller without that role reads the `nodes` table instead (cached briefly).
 */
export interface NodeDirectory {
  /**
   * Every known node. The same array comes back until something changes, so readers may cache what they
   * derive from it by identity; it is shared: never modify it. (The presence role hands out a new one for
   * plain "still alive" heartbeats at most once a second: `lastSeen` and the load may lag that much, a
   * node's online status never does.)
   */
  list(): Promise<readonly NodeState[]>;
  /**
   * What `list()` would hand out, when that needs no waiting (the presence role's memory, once loaded);
   * else undefined. Lets a hot path answer without a promise.
   */
  peek?(): readonly NodeState[] | undefined;
  /** Jobs this controller has sent to a node and not yet seen answered; counted into its load. */
  reserve(nodeId: string): void;
  release(nodeId: string): void;
  pending(nodeId: string): number;
  /**
   * A probe found the node offline (nobody serves its job subject, or it refuses jobs as it shuts down):
   * offline at once — in the node list and for node selection — instead of once its heartbeats have been
   * missing for VANTAGE_NODE_OFFLINE_AFTER_MS. Its next heartbeat brings it back. The next `list()` hands
   * out a new snapshot. Unknown ids are ignored.
   */
  markOffline(nodeId: string): void;
}

export function isOnline(node: NodeState, offlineAfterMs: number, now = Date.now()): boolean {
  return !node.draining && node.markedOfflineAt === undefined && now - node.lastSeen <= offlineAfterMs;
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

/** Equal states of one node, as read from the table (no probe's mark). */
function sameState(a: NodeState, b: NodeState): boolean {
  return (
    a.lastSeen === b.lastSeen &&
    a.runningJobs === b.runningJobs &&
    a.maxJobs === b.maxJobs &&
    a.draining === b.draining &&
    a.name === b.name &&
    a.country === b.country &&
    a.region === b.region &&
    a.provider === b.provider &&
    a.version === b.version &&
    a.capabilities.length === b.capabilities.length &&
    a.capabilities.every((c, i) => c === b.capabilities[i])
  );
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

export interface DbNodeDirectoryOptions {
  /** How long one read of the table is served (ms). */
  cacheMs?: number;
  log?: Logger;
}

/**
 * A directory over the `nodes` table, for controllers that do not run the presence role. A node marked
 * offline here is offline in this controller's view only (the table has nowhere to keep the mark): until a
 * heartbeat newer than the mark reaches the table — `last_seen` is when the presence role received it —
 * however often the table is read again meanwhile. Other controllers learn from their own probes, or when
 * the heartbeats go stale. The mark's time is this controller's clock and `last_seen` the presence
 * controller's: skew between them delays a recovery by at most one heartbeat interval, or, if it exceeds
 * the time between a node's last heartbeat and the probe that found it gone, lets that last heartbeat undo
 * the mark (the node is then offline once its heartbeats are stale, as without a mark).
 */
export function dbNodeDirectory(db: Kysely<Database>, opts: DbNodeDirectoryOptions = {}): NodeDirectory {
  const cacheMs = opts.cacheMs ?? 1000;
  const jobs = new PendingJobs();
  // Node id → when this controller found it offline (epoch ms, this controller's clock).
  const marks = new Map<string, number>();
  let marksVersion = 0;
  let cached: { at: number; nodes: Promise<NodeState[]> } | undefined;
  // What `list()` hands out: one table read with the marks applied, rebuilt when either changes.
  let view: { read: Promise<NodeState[]>; marksVersion: number; nodes: Promise<NodeState[]> } | undefined;

  // The state objects of the last read, by id: a row that has not changed since keeps its object, so what
  // readers keep per node object (the node list's JSON of it) outlives the re-read.
  let lastRead = new Map<string, NodeState>();
  const reuse = (rows: NodeState[]): NodeState[] => {
    const byId = new Map<string, NodeState>();
    const out = rows.map((r) => {
      const prev = lastRead.get(r.id);
      const n = prev && sameState(prev, r) ? prev : r;
      byId.set(n.id, n);
      return n;
    });
    lastRead = byId;
    return out;
  };

  const read = () => {
    const now = Date.now();
    if (!cached || now - cached.at > cacheMs) {
      const nodes = readNodeRows(db).then(reuse);
      cached = { at: now, nodes };
      nodes.catch(() => {
        cached = undefined;
      });
    }
    return cached.nodes;
  };

  const applyMarks = (rows: NodeState[]): NodeState[] => {
    if (marks.size === 0) return rows;
    const known = new Set(rows.map((n) => n.id));
    for (const id of marks.keys()) if (!known.has(id)) marks.delete(id);
    return rows.map((n) => {
      const at = marks.get(n.id);
      if (at === undefined) return n;
      if (n.lastSeen > at) {
        // A heartbeat received after the mark: the node is back (the mark never outlives it).
        marks.delete(n.id);
        opts.log?.info({ node_id: n.id }, "node back online: heartbeat after a probe found it offline");
        return n;
      }
      return { ...n, markedOfflineAt: at };
    });
  };

  return {
    list() {
      const rows = read();
      if (!view || view.read !== rows || view.marksVersion !== marksVersion) {
        view = { read: rows, marksVersion, nodes: rows.then(applyMarks) };
      }
      return view.nodes;
    },
    reserve: (id) => jobs.reserve(id),
    release: (id) => jobs.release(id),
    pending: (id) => jobs.pending(id),
    markOffline(id) {
      if (!marks.has(id)) {
        opts.log?.warn(
          { node_id: id },
          "node marked offline by a probe (no responders, or shutting down) until its next heartbeat",
        );
      }
      // A later mark replaces an earlier one: only a heartbeat newer than the latest failure brings it back.
      marks.set(id, Date.now());
      marksVersion++;
    },
  };
}
