import type { ProbeType } from "@vantage/probes";
import { ApiError } from "../../http/errors.js";
import {
  isOnline,
  type LiveNodes,
  type LivePool,
  loadOf,
  type NodeDirectory,
  type NodeState,
} from "../nodes/index.js";
import { pickSpread, pickSpreadLive } from "./node-spread.js";

/** Most node ids one probe request may name (Form A `node_ids`, Form B `nodes`). */
export const MAX_NODE_IDS = 50;

export interface SelectedNode {
  id: string;
  name: string;
  /** False for a named node that is known but offline: it gets a `node_offline` entry, no job. */
  online: boolean;
}

export interface SelectOptions {
  type: ProbeType;
  /** Node ids as the caller gave them, and the body field they came from (for error paths). */
  requested?: { ids: readonly string[]; field: string } | undefined;
  /** How many nodes automatic selection picks. */
  count: number;
  /** Address family of a literal IP target: automatic selection prefers nodes that can reach it. */
  family?: 4 | 6 | undefined;
  offlineAfterMs: number;
  now?: number;
}

/**
 * Named nodes as given (duplicates dropped; an unknown id is a 400 naming the field and index), else up to
 * `count` online nodes, spread over countries, then regions, then providers, least loaded first. Automatic
 * picks come from the nodes able to run the probe (its type; IPv6 for an IPv6 literal target); when no
 * online node is, from all online nodes, whose entries then say what went wrong.
 *
 * A directory fed by heartbeats keeps the online nodes indexed as they change (`NodeDirectory.live`): named
 * ids are looked up, and a spread costs rounds × location groups and a log-time take per node picked, never
 * a pass over every node (issue #34). Without it (a fixed list; or a caller's own `now`, which only the
 * snapshot can judge) what does not depend on the load (the id index, the online and capable nodes, their
 * grouping) is kept per directory snapshot.
 */
export async function selectNodes(directory: NodeDirectory, opts: SelectOptions): Promise<SelectedNode[]> {
  const live = directory.live;
  if (live && opts.now === undefined && live.offlineAfterMs === opts.offlineAfterMs) {
    const loading = live.ready();
    if (loading) await loading;
    return selectLive(live, opts);
  }
  const now = opts.now ?? Date.now();
  const snapshot = await directory.list();
  const requested = opts.requested;
  if (requested && requested.ids.length > 0) {
    const known = indexOf(snapshot);
    return named(requested, (id) => known.get(id), opts.offlineAfterMs, now);
  }
  const online = onlineOf(snapshot, opts.offlineAfterMs, now);
  const capable = capableOf(online, opts.type, opts.family);
  const picked = pickSpread(capable.length > 0 ? capable : online.nodes, opts.count, (n) =>
    loadOf(n, directory.pending(n.id)),
  );
  if (picked.length === 0) {
    throw new ApiError("no_nodes_available", "no probe node is online; start an agent and try again");
  }
  return picked.map((n) => ({ id: n.id, name: n.name, online: true }));
}

function selectLive(live: LiveNodes, opts: SelectOptions): SelectedNode[] {
  const now = Date.now();
  const requested = opts.requested;
  if (requested && requested.ids.length > 0) {
    return named(requested, (id) => live.get(id), opts.offlineAfterMs, now);
  }
  const pool = capablePool(live, opts.type, opts.family, now);
  const picked = pickSpreadLive(pool, opts.count);
  if (picked.length === 0) {
    throw new ApiError("no_nodes_available", "no probe node is online; start an agent and try again");
  }
  return picked.map((n) => ({ id: n.id, name: n.name, online: true }));
}

/** Pool keys and predicates per probe type and family, made once (a pick then makes neither). */
const capableKeys = new Map<string, { key: string; accepts: (n: NodeState) => boolean }>();
const anyNode = () => true;

/** The online nodes able to run the probe; when none is, every online node (their entries say why). */
function capablePool(live: LiveNodes, type: ProbeType, family: 4 | 6 | undefined, now: number): LivePool {
  const slot = family === undefined ? type : `${type}/${family}`;
  let c = capableKeys.get(slot);
  if (!c) {
    c = { key: `${type}/${family ?? ""}`, accepts: (n) => supports(n, type) && reaches(n, family) };
    capableKeys.set(slot, c);
  }
  const capable = live.pool(c.key, c.accepts, now);
  return capable.size > 0 ? capable : live.pool("", anyNode, now);
}

/** Named nodes as given, duplicates dropped; an unknown id is a 400 naming the field and index. */
function named(
  requested: { ids: readonly string[]; field: string },
  get: (id: string) => NodeState | undefined,
  offlineAfterMs: number,
  now: number,
): SelectedNode[] {
  const details: { path: string; message: string }[] = [];
  const out: SelectedNode[] = [];
  const seen = new Set<string>();
  requested.ids.forEach((id, i) => {
    const node = get(id);
    if (!node) details.push({ path: `body.${requested.field}.${i}`, message: `unknown node id "${id}"` });
    else if (!seen.has(id)) {
      seen.add(id);
      out.push({ id, name: node.name, online: isOnline(node, offlineAfterMs, now) });
    }
  });
  const first = details[0];
  if (first) throw new ApiError("validation_error", `${first.path}: ${first.message}`, details);
  return out;
}

const indexes = new WeakMap<readonly NodeState[], Map<string, NodeState>>();

function indexOf(snapshot: readonly NodeState[]): Map<string, NodeState> {
  let index = indexes.get(snapshot);
  if (!index) {
    index = new Map(snapshot.map((n) => [n.id, n]));
    indexes.set(snapshot, index);
  }
  return index;
}

/** A snapshot's online nodes at `builtAt`, the same until `validUntil` (the first one's heartbeat expiry). */
export interface Online {
  offlineAfterMs: number;
  builtAt: number;
  validUntil: number;
  nodes: NodeState[];
  /** The capable subset per probe type and target family. */
  capable: Map<string, NodeState[]>;
}

const onlineBySnapshot = new WeakMap<readonly NodeState[], Online>();

export function onlineOf(snapshot: readonly NodeState[], offlineAfterMs: number, now: number): Online {
  const kept = onlineBySnapshot.get(snapshot);
  if (kept && kept.offlineAfterMs === offlineAfterMs && now >= kept.builtAt && now <= kept.validUntil) {
    return kept;
  }
  let validUntil = Number.POSITIVE_INFINITY;
  const nodes: NodeState[] = [];
  for (const n of snapshot) {
    if (!isOnline(n, offlineAfterMs, now)) continue;
    nodes.push(n);
    validUntil = Math.min(validUntil, n.lastSeen + offlineAfterMs);
  }
  const online: Online = { offlineAfterMs, builtAt: now, validUntil, nodes, capable: new Map() };
  onlineBySnapshot.set(snapshot, online);
  return online;
}

export function capableOf(online: Online, type: ProbeType, family: 4 | 6 | undefined): NodeState[] {
  const key = `${type}/${family ?? ""}`;
  let capable = online.capable.get(key);
  if (!capable) {
    capable = online.nodes.filter((n) => supports(n, type) && reaches(n, family));
    online.capable.set(key, capable);
  }
  return capable;
}

const probeCapabilities = new Set(["http", "ping", "dns", "tcp", "traceroute", "mtr"]);

/** A node that advertises probe types must list this one; a node that lists none is assumed to run all. */
export function supports(node: NodeState, type: ProbeType): boolean {
  let advertises = false;
  for (const c of node.capabilities) {
    if (c === type) return true;
    if (probeCapabilities.has(c)) advertises = true;
  }
  return !advertises;
}

/** An IPv6 target needs a node that advertises `ipv6` (every node is taken to have IPv4). */
export function reaches(node: NodeState, family: 4 | 6 | undefined): boolean {
  return family !== 6 || node.capabilities.includes("ipv6");
}
