import type { Kysely } from "kysely";
import type { Database } from "../../db/schema.js";
import {
  hasTags,
  type LocationMatch,
  matchesPlace,
  type NodeState,
  parseSelector,
  vocabularyOf,
} from "../nodes/index.js";

/** A monitor's location filter (config `locations`): each list any of, the lists combined with and. */
export interface LocationFilter {
  countries?: string[];
  regions?: string[];
  providers?: string[];
  /**
   * Location selectors as probes take them (`europe`, `DE`, `hetzner+ipv6`, `AS13335`; docs/node-selection.md):
   * a node must match one of them. A selector naming nothing known matches no node.
   */
  selectors?: string[];
}

/** What picking needs of an online node (the nodes module's `NodeState`). */
export interface LocatedNode {
  id: string;
  country: string;
  region: string;
  provider: string;
  capabilities: string[];
  runningJobs: number;
}

export function matches(
  node: LocatedNode,
  f: LocationFilter | undefined,
  selectors?: LocationMatch[],
): boolean {
  if (!f) return true;
  return (
    (!f.countries || f.countries.includes(node.country)) &&
    (!f.regions || f.regions.includes(node.region)) &&
    (!f.providers || f.providers.includes(node.provider)) &&
    (!selectors ||
      selectors.some(
        (m) =>
          matchesPlace(m, node.country, node.region, node.provider) &&
          hasTags(m, node as unknown as NodeState),
      ))
  );
}

/** The filter's selectors resolved against the nodes known now; undefined without selectors. */
function resolveSelectors(
  online: readonly LocatedNode[],
  f: LocationFilter | undefined,
): LocationMatch[] | undefined {
  if (!f?.selectors) return undefined;
  const vocabulary = vocabularyOf(online as unknown as NodeState[]);
  return f.selectors
    .map((s) => parseSelector(s, vocabulary))
    .filter((m): m is LocationMatch => !("unknown" in m));
}

/**
 * Up to `count` of the online nodes that match the filter, can run `type` and are not in `exclude`, spread
 * over locations: each round takes the least busy node of a country not yet taken, then of a region, then
 * of a provider, then any (ties by id, so a pick is stable). Empty when none qualifies.
 */
export function pickLocations(
  online: readonly LocatedNode[],
  opts: { count: number; type: string; filter?: LocationFilter | undefined; exclude?: readonly string[] },
): string[] {
  const selectors = resolveSelectors(online, opts.filter);
  const pool = online
    .filter(
      (n) => matches(n, opts.filter, selectors) && !opts.exclude?.includes(n.id) && runsType(n, opts.type),
    )
    .sort((a, b) => a.runningJobs - b.runningJobs || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const taken: LocatedNode[] = [];
  const keys = [(n: LocatedNode) => n.country, (n: LocatedNode) => n.region, (n: LocatedNode) => n.provider];
  while (taken.length < opts.count && taken.length < pool.length) {
    const rest = pool.filter((n) => !taken.includes(n));
    const fresh =
      keys
        .map((key) => rest.find((n) => !taken.some((t) => key(t) === key(n))))
        .find((n) => n !== undefined) ?? rest[0];
    if (!fresh) break;
    taken.push(fresh);
  }
  return taken.map((n) => n.id);
}

const probeTypes = new Set(["http", "ping", "dns", "tcp", "traceroute", "mtr"]);

/** As probes choose nodes: a node that advertises probe types must list this one; one listing none runs all. */
function runsType(n: LocatedNode, type: string): boolean {
  return n.capabilities.includes(type) || !n.capabilities.some((c) => probeTypes.has(c));
}

/** The country, region and provider of these nodes, as last heard (per-location state in the API). */
export async function nodeLocations(
  db: Kysely<Database>,
  ids: readonly string[],
): Promise<Map<string, { country: string; region: string; provider: string }>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .selectFrom("nodes")
    .select(["id", "country", "region", "provider"])
    .where("id", "in", [...ids])
    .execute();
  return new Map(rows.map((r) => [r.id, { country: r.country, region: r.region, provider: r.provider }]));
}
