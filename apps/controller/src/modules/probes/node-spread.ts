import type { LiveGroup, LivePool, NodeState } from "../nodes/index.js";

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

export function pickSpreadLive(pool: LivePool, count: number): NodeState[] {
  const out: NodeState[] = [];
  try {
    spreadLive(pool.groups(), count, out);
  } finally {
    pool.restore();
  }
  return out;
}
