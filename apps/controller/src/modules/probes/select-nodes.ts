import type { ProbeType } from "@vantage/probes";
import { ApiError } from "../../http/errors.js";
import {
  isOnline,
  type LiveGroup,
  type LiveNodes,
  type LivePool,
  loadOf,
  type NodeDirectory,
  type NodeState,
} from "../nodes/index.js";

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

/** Candidates sharing country, region and provider: they add the same to a spread. */
interface Group {
  country: string;
  region: string;
  provider: string;
  nodes: NodeState[];
}

const groupsByCandidates = new WeakMap<readonly NodeState[], Group[]>();

function groupsOf(candidates: readonly NodeState[]): Group[] {
  let groups = groupsByCandidates.get(candidates);
  if (groups) return groups;
  const byKey = new Map<string, Group>();
  for (const n of candidates) {
    const key = `${n.country}\u0000${n.region}\u0000${n.provider}`;
    let g = byKey.get(key);
    if (!g) {
      g = { country: n.country, region: n.region, provider: n.provider, nodes: [] };
      byKey.set(key, g);
    }
    g.nodes.push(n);
  }
  groups = [...byKey.values()];
  groupsByCandidates.set(candidates, groups);
  return groups;
}

/** A group during one pick: its members' loads, which are taken, and its best member left. */
interface GroupPick {
  group: Group;
  loads: number[];
  taken: boolean[];
  /** Index of the least loaded member not taken (-1: none left), drawn at random among equals. */
  best: number;
  /** How many members not taken share the best one's load. */
  ties: number;
}

function findBest(g: GroupPick): void {
  g.best = -1;
  g.ties = 0;
  let bestLoad = Number.POSITIVE_INFINITY;
  for (let i = 0; i < g.loads.length; i++) {
    if (g.taken[i]) continue;
    const load = g.loads[i]!;
    if (load < bestLoad) {
      g.best = i;
      bestLoad = load;
      g.ties = 1;
    } else if (load === bestLoad) {
      g.ties++;
      if (Math.random() * g.ties < 1) g.best = i;
    }
  }
}

/**
 * Greedy spread: each round takes the node that adds the most diversity (a new country outweighs a new
 * region, which outweighs a new provider; a full node comes last); ties go to the least loaded, then to
 * any of the equal nodes with the same chance, so equal nodes share the work. The score depends on a node's
 * group (country, region, provider) and on whether it is full, so a round compares each group's least
 * loaded member: rounds × groups, not rounds × nodes.
 */
export function pickSpread(
  candidates: readonly NodeState[],
  count: number,
  loadFn: (n: NodeState) => number,
): NodeState[] {
  const picks: GroupPick[] = groupsOf(candidates).map((group) => {
    const g: GroupPick = {
      group,
      loads: group.nodes.map(loadFn),
      taken: new Array<boolean>(group.nodes.length).fill(false),
      best: -1,
      ties: 0,
    };
    findBest(g);
    return g;
  });
  const countries = new Set<string>();
  const regions = new Set<string>();
  const providers = new Set<string>();
  const out: NodeState[] = [];
  while (out.length < count) {
    let chosen: GroupPick | undefined;
    let bestScore = -1;
    let bestLoad = Number.POSITIVE_INFINITY;
    // Equal candidates seen so far in the best class: a group is drawn in proportion to its equal members.
    let weight = 0;
    for (const g of picks) {
      if (g.best < 0) continue;
      const load = g.loads[g.best]!;
      const score = scoreOf(g.group, load, countries, regions, providers);
      if (score > bestScore || (score === bestScore && load < bestLoad)) {
        chosen = g;
        bestScore = score;
        bestLoad = load;
        weight = g.ties;
      } else if (score === bestScore && load === bestLoad) {
        weight += g.ties;
        if (Math.random() * weight < g.ties) chosen = g;
      }
    }
    if (!chosen) break;
    const n = chosen.group.nodes[chosen.best]!;
    chosen.taken[chosen.best] = true;
    findBest(chosen);
    countries.add(n.country);
    regions.add(n.region);
    providers.add(n.provider);
    out.push(n);
  }
  return out;
}

/**
 * What a node adds to a spread: a node at capacity comes after every node with room, whatever it adds; then
 * a new country outweighs a new region, which outweighs a new provider.
 */
function scoreOf(
  at: { country: string; region: string; provider: string },
  load: number,
  countries: Set<string>,
  regions: Set<string>,
  providers: Set<string>,
): number {
  return (
    (load >= 1 ? 0 : 8) +
    (countries.has(at.country) ? 0 : 4) +
    (regions.has(at.region) ? 0 : 2) +
    (providers.has(at.provider) ? 0 : 1)
  );
}

/**
 * What one live spread has covered, by the index's location ids (`LiveGroup.countryId` …): `marks[id] ===
 * stamp` once covered. A new spread takes the next stamp instead of clearing, so a pick allocates nothing
 * for it (a pick of 50 runs 50 rounds over every group: sets of strings there were most of its time, and
 * their garbage the young-generation collections that landed in picks).
 */
let marks = new Uint32Array(1024);
let stamp = 0;

function newSpread(): void {
  stamp++;
  if (stamp === 0xffffffff) {
    marks.fill(0);
    stamp = 1;
  }
}

const isCovered = (id: number) => id < marks.length && marks[id] === stamp;

function cover(id: number): void {
  if (id >= marks.length) {
    const grown = new Uint32Array(Math.max(id + 1, marks.length * 2));
    grown.set(marks);
    marks = grown;
  }
  marks[id] = stamp;
}

/** `scoreOf` by the groups' location ids, against the current spread's marks. */
function liveScore(g: LiveGroup, load: number): number {
  return (
    (load >= 1 ? 0 : 8) +
    (isCovered(g.countryId) ? 0 : 4) +
    (isCovered(g.regionId) ? 0 : 2) +
    (isCovered(g.providerId) ? 0 : 1)
  );
}

/**
 * `pickSpread` over a live pool: the same rounds, the same scores and the same chances (a group is drawn in
 * proportion to its least loaded members, then one of them at random: every equal node alike), but each
 * group's least loaded members come from its load index instead of a pass over its members, and a node
 * picked leaves its group until the pool's `restore()`, which the caller makes once its picks are done
 * (picks for several location entries take from the same groups: a node is never picked twice).
 */
export function spreadLive(groups: readonly LiveGroup[], count: number, out: NodeState[]): void {
  newSpread();
  for (let picked = 0; picked < count; picked++) {
    let chosen: LiveGroup | undefined;
    let bestScore = -1;
    let bestLoad = Number.POSITIVE_INFINITY;
    let weight = 0;
    for (let i = 0; i < groups.length; i++) {
      const g = groups[i]!;
      const load = g.minLoad();
      if (load === undefined) continue;
      const score = liveScore(g, load);
      if (score > bestScore || (score === bestScore && load < bestLoad)) {
        chosen = g;
        bestScore = score;
        bestLoad = load;
        weight = g.ties();
      } else if (score === bestScore && load === bestLoad) {
        const ties = g.ties();
        weight += ties;
        if (Math.random() * weight < ties) chosen = g;
      }
    }
    if (!chosen) return;
    cover(chosen.countryId);
    cover(chosen.regionId);
    cover(chosen.providerId);
    out.push(chosen.take());
  }
}

function pickSpreadLive(pool: LivePool, count: number): NodeState[] {
  const out: NodeState[] = [];
  try {
    spreadLive(pool.groups(), count, out);
  } finally {
    pool.restore();
  }
  return out;
}
