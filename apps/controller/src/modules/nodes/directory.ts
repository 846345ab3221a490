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
  /** The key the node signs its results with (a user nkey `U…`, docs/verify.md); absent when it signs none. */
  publicKey?: string | undefined;
  /**
   * The node's network and operator tags from its heartbeats (VANTAGE_NODE_ASN, VANTAGE_NODE_TAGS), for
   * location selectors; kept in memory only (a node loaded from the table has them from its next heartbeat).
   */
  asn?: number | undefined;
  tags?: readonly string[] | undefined;
  /**
   * Epoch ms at which a probe found the node offline (`NodeDirectory.markOffline`): offline from then on,
   * until a heartbeat received after it.
   */
  markedOfflineAt?: number;
}

/**
 * The node directory the probe module reads: in memory, fed by heartbeats (`presence.ts`) on every
 * controller that picks nodes, so choosing nodes never waits for the database.
 */
export interface NodeDirectory {
  /**
   * Every known node. The same array comes back until something changes, so readers may cache what they
   * derive from it by identity; it is shared: never modify it. (A new one for plain "still alive"
   * heartbeats comes at most once a second: `lastSeen` and the load may lag that much, a node's online
   * status never does.)
   */
  list(): Promise<readonly NodeState[]>;
  /**
   * What `list()` would hand out, when that needs no waiting (once the known nodes have been loaded, or
   * their first load has failed); else undefined. Lets a hot path answer without a promise.
   */
  peek?(): readonly NodeState[] | undefined;
  /**
   * The online nodes and the indexes node choice needs, kept up to date as heartbeats arrive and expire
   * (`live-index.ts`): picking nodes from them costs no pass over every node. Absent on a directory
   * without heartbeats (a fixed list in tests and benchmarks): node choice then works from `list()`.
   */
  readonly live?: LiveNodes | undefined;
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

/** The online nodes and node choice's indexes, kept up to date as heartbeats arrive (`live-index.ts`). */
export interface LiveNodes {
  /** The `offlineAfterMs` the set is kept with. */
  readonly offlineAfterMs: number;
  /**
   * Until the known nodes are loaded, what resolves once they are (as `NodeDirectory.list()` waits for
   * them); then undefined, so a pick needs no promise.
   */
  ready(): Promise<void> | undefined;
  /** A known node by id, online or not. */
  get(id: string): NodeState | undefined;
  /** How many nodes are online now. */
  onlineCount(now?: number): number;
  /**
   * The online nodes `accepts` takes, grouped by location; `key` names the predicate (the same key must
   * always come with the same predicate). Expired nodes leave first.
   */
  pool(key: string, accepts: (n: NodeState) => boolean, now?: number): LivePool;
}

export interface LivePool {
  readonly size: number;
  /**
   * The groups, in no particular order: the same array while the pool lives (read it, never change it).
   * Every group with a member is in it; one whose members a pick has taken stays until `restore()`.
   */
  groups(): readonly LiveGroup[];
  /**
   * Puts back every member `take()` removed. A pick takes its nodes out of their groups while it runs (so
   * each group's best is the best not yet taken) and must call this before it yields.
   */
  restore(): void;
}

export interface LiveGroup {
  readonly country: string;
  readonly region: string;
  readonly provider: string;
  /**
   * Small numbers for the three, unique within the index across all three (one numbering: a country and a
   * provider never share one), so a pick marks what it has covered in an array instead of sets of strings.
   */
  readonly countryId: number;
  readonly regionId: number;
  readonly providerId: number;
  /** The least load of a member not taken; undefined when none is left. */
  minLoad(): number | undefined;
  /** How many members not taken have that load. */
  ties(): number;
  /** Takes one of the least loaded members, each with the same chance, until the pool's `restore()`. */
  take(): NodeState;
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
    ...(r.public_key ? { publicKey: r.public_key } : {}),
  };
}

/** A `nodes` row as Kysely selects it. */
export type NodeRow = Selectable<NodesTable>;

export async function readNodeRows(db: Kysely<Database>): Promise<NodeState[]> {
  const rows = await db.selectFrom("nodes").selectAll().orderBy("id").execute();
  return rows.map(rowToNodeState);
}

/** Pending-job counts per node: jobs this controller has sent and not yet seen answered. */
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
