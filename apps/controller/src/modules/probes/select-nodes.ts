import type { ProbeType } from "@vantage/probes";
import { ApiError } from "../../http/errors.js";
import { isOnline, loadOf, type NodeDirectory, type NodeState } from "../nodes/index.js";

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
 */
export async function selectNodes(directory: NodeDirectory, opts: SelectOptions): Promise<SelectedNode[]> {
  const now = opts.now ?? Date.now();
  const known = new Map((await directory.list()).map((n) => [n.id, n]));
  const requested = opts.requested;
  if (requested && requested.ids.length > 0) {
    const details: { path: string; message: string }[] = [];
    const out: SelectedNode[] = [];
    const seen = new Set<string>();
    requested.ids.forEach((id, i) => {
      const node = known.get(id);
      if (!node) details.push({ path: `body.${requested.field}.${i}`, message: `unknown node id "${id}"` });
      else if (!seen.has(id)) {
        seen.add(id);
        out.push({ id, name: node.name, online: isOnline(node, opts.offlineAfterMs, now) });
      }
    });
    const first = details[0];
    if (first) throw new ApiError("validation_error", `${first.path}: ${first.message}`, details);
    return out;
  }
  const online = [...known.values()].filter((n) => isOnline(n, opts.offlineAfterMs, now));
  const capable = online.filter((n) => supports(n, opts.type) && reaches(n, opts.family));
  const picked = pickSpread(capable.length > 0 ? capable : online, opts.count, (n) =>
    loadOf(n, directory.pending(n.id)),
  );
  if (picked.length === 0) {
    throw new ApiError("no_nodes_available", "no probe node is online; start an agent and try again");
  }
  return picked.map((n) => ({ id: n.id, name: n.name, online: true }));
}

const probeCapabilities = new Set(["http", "ping", "dns", "tcp", "traceroute"]);

/** A node that advertises probe types must list this one; a node that lists none is assumed to run all. */
function supports(node: NodeState, type: ProbeType): boolean {
  const advertised = node.capabilities.filter((c) => probeCapabilities.has(c));
  return advertised.length === 0 || advertised.includes(type);
}

/** An IPv6 target needs a node that advertises `ipv6` (every node is taken to have IPv4). */
function reaches(node: NodeState, family: 4 | 6 | undefined): boolean {
  return family !== 6 || node.capabilities.includes("ipv6");
}

/**
 * Greedy spread: each round takes the node that adds the most diversity (a new country outweighs a new
 * region, which outweighs a new provider; a full node comes last); ties go to the least loaded, then a random order so equal
 * nodes share the work.
 */
export function pickSpread(
  candidates: readonly NodeState[],
  count: number,
  loadFn: (n: NodeState) => number,
): NodeState[] {
  const pool = candidates
    .map((n) => ({ n, load: loadFn(n), tie: Math.random() }))
    .sort((a, b) => a.load - b.load || a.tie - b.tie);
  const countries = new Set<string>();
  const regions = new Set<string>();
  const providers = new Set<string>();
  const out: NodeState[] = [];
  while (out.length < count && pool.length > 0) {
    let best = 0;
    let bestScore = -1;
    for (let i = 0; i < pool.length; i++) {
      const { n, load } = pool[i]!;
      // A node at capacity comes after every node with room, whatever it adds to the spread.
      const score =
        (load >= 1 ? 0 : 8) +
        (countries.has(n.country) ? 0 : 4) +
        (regions.has(n.region) ? 0 : 2) +
        (providers.has(n.provider) ? 0 : 1);
      if (score > bestScore) {
        best = i;
        bestScore = score;
      }
    }
    const [chosen] = pool.splice(best, 1);
    const n = chosen!.n;
    countries.add(n.country);
    regions.add(n.region);
    providers.add(n.provider);
    out.push(n);
  }
  return out;
}
