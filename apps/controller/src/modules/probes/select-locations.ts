import type { ProbeType } from "@vantage/probes";
import { ApiError } from "../../http/errors.js";
import {
  hasTags,
  type LiveNodes,
  type LivePool,
  type LocationMatch,
  loadOf,
  matchesPlace,
  type NodeDirectory,
  type NodeState,
  parseSelector,
  vocabularyOf,
} from "../nodes/index.js";
import { pickSpread, spreadLive } from "./node-spread.js";
import { capableOf, onlineOf, reaches, type SelectedNode, supports } from "./select-nodes.js";

/** One `locations` entry: a selector string and how many nodes it picks. */
export interface LocationEntry {
  selector: string;
  count: number;
}

export interface LocationOptions {
  type: ProbeType;
  /** The entries, and the body field they came from (`locations`), for error paths. */
  locations: { entries: readonly LocationEntry[]; field: string };
  family?: 4 | 6 | undefined;
  offlineAfterMs: number;
}

/**
 * Nodes for `locations` (docs/node-selection.md): each entry in turn picks up to its count of online nodes
 * able to run the probe that match its selector, spread over countries, regions and providers and least
 * loaded first (ties drawn at random, so repeated runs land on other equal nodes), never a node an earlier
 * entry picked. An entry that finds fewer nodes than its count leaves the rest unfilled; when no entry finds
 * any, 503 `no_nodes_available` naming the selectors. An unknown selector term is a 400 naming the entry
 * and the term, before anything is picked.
 *
 * From the live index: a selector's place terms (country, continent, region, provider) are matched once
 * per location group, its tags by a pool of the nodes advertising them (pools per tag set: a bounded
 * number, as tags are capabilities), so a pick never passes over every node.
 */
export async function selectLocations(
  directory: NodeDirectory,
  opts: LocationOptions,
): Promise<SelectedNode[]> {
  const snapshot = directory.peek?.() ?? (await directory.list());
  const vocabulary = vocabularyOf(snapshot);
  const { entries, field } = opts.locations;
  const matches = entries.map((e, i) => {
    const m = parseSelector(e.selector, vocabulary);
    if ("unknown" in m) {
      const message = `unknown location selector "${m.unknown}" in "${e.selector}" (GET /v1/nodes/selectors lists them)`;
      throw new ApiError("validation_error", `body.${field}.${i}: ${message}`, [
        { path: `body.${field}.${i}`, message },
      ]);
    }
    return m;
  });
  const live = directory.live;
  let picked: NodeState[];
  if (live && live.offlineAfterMs === opts.offlineAfterMs) {
    const loading = live.ready();
    if (loading) await loading;
    picked = pickLive(live, opts, matches);
  } else {
    const online = onlineOf(snapshot, opts.offlineAfterMs, Date.now());
    const capable = capableOf(online, opts.type, opts.family);
    const taken = new Set<string>();
    picked = [];
    matches.forEach((m, i) => {
      const candidates = capable.filter(
        (n) => !taken.has(n.id) && matchesPlace(m, n.country, n.region, n.provider) && hasTags(m, n),
      );
      for (const n of pickSpread(candidates, entries[i]!.count, (n) => loadOf(n, directory.pending(n.id)))) {
        taken.add(n.id);
        picked.push(n);
      }
    });
  }
  if (picked.length === 0) {
    throw new ApiError(
      "no_nodes_available",
      `no online node able to run this probe matches ${entries.map((e) => `"${e.selector}"`).join(", ")}`,
    );
  }
  return picked.map((n) => ({ id: n.id, name: n.name, online: true }));
}

function pickLive(live: LiveNodes, opts: LocationOptions, matches: LocationMatch[]): NodeState[] {
  const { type, family } = opts;
  const used = new Set<LivePool>();
  const out: NodeState[] = [];
  try {
    matches.forEach((m, i) => {
      // Pools per tag set and network: bounded, as both must be known nodes' (see parseSelector).
      const tags = m.tags.join(",");
      const pool = live.pool(
        `${type}/${family ?? ""}/tags:${tags}/as:${m.asn ?? ""}`,
        (n) => supports(n, type) && reaches(n, family) && hasTags(m, n),
      );
      used.add(pool);
      const groups = pool.groups().filter((g) => matchesPlace(m, g.country, g.region, g.provider));
      spreadLive(groups, opts.locations.entries[i]!.count, out);
    });
  } finally {
    for (const pool of used) pool.restore();
  }
  return out;
}
