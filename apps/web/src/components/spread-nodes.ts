import type { DirectoryNode, ProbeType } from "./api-types.js";

/** Nodes that can run `type`: online, and advertising it when they advertise probe types at all. */
export function capableNodes(nodes: DirectoryNode[], type: ProbeType): DirectoryNode[] {
  const types = ["http", "ping", "dns", "tcp", "traceroute", "mtr"];
  return nodes.filter(
    (n) =>
      n.status === "online" &&
      (!n.capabilities.some((c) => types.includes(c)) || n.capabilities.includes(type)),
  );
}

/**
 * `count` online nodes spread as the API spreads its automatic choice: a new country first, then a new
 * region, then a new provider. Among equals the order is random, so repeated runs share the load (the
 * directory does not publish the nodes' load, which the API's own choice weighs).
 */
export function spreadNodes(
  nodes: DirectoryNode[],
  type: ProbeType,
  count: number,
  random = Math.random,
): string[] {
  const pool = capableNodes(nodes, type)
    .map((n) => ({ n, r: random() }))
    .sort((a, b) => a.r - b.r)
    .map((x) => x.n);
  const chosen: DirectoryNode[] = [];
  const seen = { country: new Set<string>(), region: new Set<string>(), provider: new Set<string>() };
  while (chosen.length < count && pool.length > 0) {
    let best = 0;
    let bestScore = -1;
    pool.forEach((n, i) => {
      const score =
        (seen.country.has(n.country) ? 0 : 4) +
        (seen.region.has(n.region) ? 0 : 2) +
        (seen.provider.has(n.provider) ? 0 : 1);
      if (score > bestScore) {
        best = i;
        bestScore = score;
      }
    });
    const [n] = pool.splice(best, 1);
    chosen.push(n!);
    seen.country.add(n!.country);
    seen.region.add(n!.region);
    seen.provider.add(n!.provider);
  }
  return chosen.map((n) => n.id);
}
