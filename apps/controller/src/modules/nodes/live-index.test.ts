import { describe, expect, it } from "vitest";
import { isOnline, type LivePool, loadOf, type NodeState, PendingJobs } from "./directory.js";
import { LiveIndex } from "./live-index.js";

const OFFLINE_AFTER = 15_000;
const T0 = 1_700_000_000_000;

const node = (id: string, over: Partial<NodeState> = {}): NodeState => ({
  id,
  name: id,
  country: "DE",
  region: "eu-central",
  provider: "hetzner",
  version: "1",
  capabilities: ["ipv4", "ping"],
  runningJobs: 0,
  maxJobs: 10,
  lastSeen: T0,
  draining: false,
  ...over,
});

/** An index over a plain map, as presence.ts keeps one, and what a pass over every node would say. */
function harness() {
  const nodes = new Map<string, NodeState>();
  const jobs = new PendingJobs();
  const live = new LiveIndex(
    OFFLINE_AFTER,
    (id) => nodes.get(id),
    (id) => jobs.pending(id),
    async () => {},
  );
  const set = (n: NodeState, now = n.lastSeen) => {
    nodes.set(n.id, n);
    live.update(n, now);
  };
  /** Per location: the members' ids, their least load and how many share it; as a pass would find them. */
  const brute = (accepts: (n: NodeState) => boolean, now: number) => {
    const out = new Map<string, { ids: string[]; min: number; ties: number }>();
    for (const n of nodes.values()) {
      if (!isOnline(n, OFFLINE_AFTER, now) || !accepts(n)) continue;
      const key = `${n.country}/${n.region}/${n.provider}`;
      const g = out.get(key) ?? { ids: [], min: Number.POSITIVE_INFINITY, ties: 0 };
      const load = loadOf(n, jobs.pending(n.id));
      if (load < g.min) {
        g.min = load;
        g.ties = 1;
      } else if (load === g.min) g.ties++;
      g.ids.push(n.id);
      out.set(key, g);
    }
    for (const g of out.values()) g.ids.sort();
    return out;
  };
  /** The pool's groups, with every member (taken out one by one, then restored). */
  const seen = (pool: LivePool) => {
    const out = new Map<string, { ids: string[]; min: number; ties: number }>();
    for (const g of pool.groups()) {
      const min = g.minLoad();
      if (min === undefined) continue;
      const entry = { ids: [] as string[], min, ties: g.ties() };
      while (g.minLoad() !== undefined) entry.ids.push(g.take().id);
      entry.ids.sort();
      out.set(`${g.country}/${g.region}/${g.provider}`, entry);
    }
    pool.restore();
    return out;
  };
  return { nodes, jobs, live, set, brute, seen };
}

const pingers = (n: NodeState) => n.capabilities.includes("ping");
const ids = (m: Map<string, { ids: string[] }>) => [...m.values()].flatMap((g) => g.ids).sort();

describe("LiveIndex", () => {
  it("joins: a new node is in every pool that accepts it, made before or after it came", () => {
    const h = harness();
    h.set(node("a"));
    const early = h.live.pool("ping", pingers, T0);
    h.set(node("b", { country: "US", region: "us-east", capabilities: ["ipv4"] }));
    h.set(node("c", { provider: "aws" }));
    const late = h.live.pool("all", () => true, T0);
    expect(ids(h.seen(early))).toEqual(["a", "c"]);
    expect(ids(h.seen(late))).toEqual(["a", "b", "c"]);
    expect(h.seen(late)).toEqual(h.brute(() => true, T0));
    expect(h.live.onlineCount(T0)).toBe(3);
  });

  it("leaves: expiry drops a node once its heartbeat is stale, a heartbeat brings it back", () => {
    const h = harness();
    h.set(node("old", { lastSeen: T0 }));
    h.set(node("new", { lastSeen: T0 + 5000 }));
    const pool = () => h.live.pool("all", () => true, now);
    let now = T0 + OFFLINE_AFTER;
    expect(ids(h.seen(pool()))).toEqual(["new", "old"]);
    now = T0 + OFFLINE_AFTER + 1;
    expect(ids(h.seen(pool()))).toEqual(["new"]);
    expect(h.live.onlineCount(now)).toBe(1);
    h.set(node("old", { lastSeen: now }));
    expect(ids(h.seen(pool()))).toEqual(["new", "old"]);
    now = T0 + 5000 + OFFLINE_AFTER + 1;
    expect(ids(h.seen(pool()))).toEqual(["old"]);
    // Known all along, online or not.
    expect(h.live.get("new")?.id).toBe("new");
  });

  it("leaves: draining and a probe's offline mark take a node out at once", () => {
    const h = harness();
    h.set(node("a"));
    h.set(node("b"));
    const pool = h.live.pool("all", () => true, T0);
    h.set(node("a", { draining: true }));
    h.set({ ...node("b"), markedOfflineAt: T0 });
    expect(pool.size).toBe(0);
    expect([...pool.groups()]).toEqual([]);
    h.set(node("b", { lastSeen: T0 + 1 }));
    expect(ids(h.seen(pool))).toEqual(["b"]);
  });

  it("changed attributes: a node moves between groups and pools with its location and capabilities", () => {
    const h = harness();
    h.set(node("a"));
    const ping = h.live.pool("ping", pingers, T0);
    const all = h.live.pool("all", () => true, T0);
    h.set(node("a", { country: "FR", region: "eu-west", capabilities: ["ipv4"], lastSeen: T0 + 1 }));
    expect(ids(h.seen(ping))).toEqual([]);
    expect([...h.seen(all).keys()]).toEqual(["FR/eu-west/hetzner"]);
    h.set(node("a", { country: "FR", region: "eu-west", capabilities: ["ipv4", "ping"], lastSeen: T0 + 2 }));
    expect([...h.seen(ping).keys()]).toEqual(["FR/eu-west/hetzner"]);
  });

  it("loads: heartbeats and this controller's pending jobs reorder a group's least loaded", () => {
    const h = harness();
    for (const id of ["a", "b", "c"]) h.set(node(id));
    const pool = h.live.pool("all", () => true, T0);
    const group = () => [...pool.groups()][0]!;
    expect([group().minLoad(), group().ties()]).toEqual([0, 3]);
    h.jobs.reserve("a");
    h.live.reload("a");
    h.set(node("b", { runningJobs: 3, lastSeen: T0 + 1 }));
    expect([group().minLoad(), group().ties()]).toEqual([0, 1]);
    expect(group().take().id).toBe("c");
    expect(group().minLoad()).toBeCloseTo(0.1);
    expect(group().take().id).toBe("a");
    pool.restore();
    h.jobs.release("a");
    h.live.reload("a");
    expect([group().minLoad(), group().ties()]).toEqual([0, 2]);
  });

  it("over random joins, leaves, moves, loads and marks, every pool matches a pass over every node", () => {
    const h = harness();
    let now = T0;
    const countries = ["DE", "US", "FR"];
    const providers = ["aws", "ovh"];
    const caps = [["ipv4"], ["ipv4", "ping"], ["ipv4", "ipv6", "ping"]];
    const keyed: [string, (n: NodeState) => boolean][] = [
      ["all", () => true],
      ["ping", pingers],
      ["v6", (n) => n.capabilities.includes("ipv6")],
    ];
    // A pool made at the start and one made halfway: both must follow every change.
    h.live.pool("all", () => true, now);
    let seed = 7;
    const rand = (k: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % k;
    };
    for (let step = 0; step < 3000; step++) {
      now += rand(40);
      const id = `n${rand(60)}`;
      const r = rand(10);
      const known = h.nodes.get(id);
      if (r < 6 || !known) {
        const c = rand(3);
        h.set(
          node(id, {
            country: countries[c]!,
            region: `r${c}`,
            provider: providers[rand(2)]!,
            capabilities: caps[rand(3)]!,
            runningJobs: rand(4),
            maxJobs: 1 + rand(4),
            draining: rand(20) === 0,
            lastSeen: now,
          }),
          now,
        );
      } else if (r < 8) {
        h.jobs[rand(2) === 0 ? "reserve" : "release"](id);
        h.live.reload(id);
      } else if (r === 8) {
        h.set({ ...known, markedOfflineAt: now }, now);
      }
      if (step === 1500) h.live.pool("ping", pingers, now);
      if (step % 50 === 0) {
        for (const [key, accepts] of keyed) {
          if (key === "v6" && step < 2000) continue;
          expect(h.seen(h.live.pool(key, accepts, now)), `${key} at step ${step}`).toEqual(
            h.brute(accepts, now),
          );
        }
        expect(h.live.onlineCount(now)).toBe(
          [...h.nodes.values()].filter((n) => isOnline(n, OFFLINE_AFTER, now)).length,
        );
      }
    }
  });

  it("nodes loaded out of heartbeat order still expire in time", () => {
    const h = harness();
    h.set(node("fresh", { lastSeen: T0 + 10_000 }), T0 + 10_000);
    // Loaded from the table after it, with an older heartbeat.
    h.set(node("loaded", { lastSeen: T0 }), T0 + 10_000);
    const now = T0 + OFFLINE_AFTER + 1;
    expect(ids(h.seen(h.live.pool("all", () => true, now)))).toEqual(["fresh"]);
  });
});
