import type { Kysely } from "kysely";
import type { Database } from "../../db/schema.js";

/** A monitor's location filter (config `locations`): each list any of, the lists combined with and. */
export interface LocationFilter {
  countries?: string[];
  regions?: string[];
  providers?: string[];
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

export function matches(node: LocatedNode, f: LocationFilter | undefined): boolean {
  if (!f) return true;
  return (
    (!f.countries || f.countries.includes(node.country)) &&
    (!f.regions || f.regions.includes(node.region)) &&
    (!f.providers || f.providers.includes(node.provider))
  );
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
  const pool = online
    .filter(
      (n) =>
        matches(n, opts.filter) &&
        !opts.exclude?.includes(n.id) &&
        (n.capabilities.length === 0 || n.capabilities.includes(opts.type)),
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
