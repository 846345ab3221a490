import { describe, expect, it } from "vitest";
import type { NodeDirectory, NodeState } from "../nodes/index.js";
import { dispatchTimeoutMs, probeBudgetMs } from "./deadlines.js";
import { buildSpec } from "./fields.js";
import { pickSpread } from "./node-spread.js";
import { selectNodes } from "./select-nodes.js";

const node = (
  id: string,
  country: string,
  region: string,
  provider: string,
  running = 0,
  max = 10,
): NodeState => ({
  id,
  name: id,
  country,
  region,
  provider,
  version: "1",
  capabilities: [],
  runningJobs: running,
  maxJobs: max,
  lastSeen: Date.now(),
  draining: false,
});
const load = (n: NodeState) => n.runningJobs / n.maxJobs;

describe("pickSpread", () => {
  it("prefers a new country, then a new region, then a new provider", () => {
    const nodes = [
      node("de-a", "DE", "eu-central", "hetzner"),
      node("de-b", "DE", "eu-central", "aws"),
      node("de-c", "DE", "eu-west", "hetzner"),
      node("us-a", "US", "us-east", "aws"),
    ];
    for (let i = 0; i < 20; i++) {
      const picked = pickSpread(nodes, 3, load);
      expect(picked.map((n) => n.country).sort()).toEqual(["DE", "DE", "US"]);
      // The second German node is always in the other region: a new region beats a new provider.
      expect(new Set(picked.map((n) => n.region)).size).toBe(3);
    }
  });

  it("takes the least loaded among equals and puts full nodes last", () => {
    const nodes = [
      node("busy", "DE", "r", "p", 9),
      node("idle", "DE", "r", "p", 1),
      node("full", "US", "r2", "p2", 10),
    ];
    expect(pickSpread(nodes, 1, load).map((n) => n.id)).toEqual(["idle"]);
    expect(pickSpread(nodes, 3, load).map((n) => n.id)).toEqual(["idle", "busy", "full"]);
  });

  it("returns fewer when fewer exist, none from none", () => {
    expect(pickSpread([node("a", "DE", "r", "p")], 3, load)).toHaveLength(1);
    expect(pickSpread([], 3, load)).toEqual([]);
  });
});

describe("dispatch deadlines", () => {
  it("probe budget + 1 s grace per type", () => {
    expect(dispatchTimeoutMs(buildSpec("http", { url: "https://x.example/", timeout_ms: 3000 }))).toBe(4000);
    expect(probeBudgetMs(buildSpec("ping", { host: "x.example", count: 10, timeout_ms: 2000 }))).toBe(4000);
    expect(probeBudgetMs(buildSpec("dns", { domain: "x.example" }))).toBe(10_000);
    expect(probeBudgetMs(buildSpec("tcp", { host: "x.example", port: 1 }))).toBe(5000);
    expect(probeBudgetMs(buildSpec("traceroute", { host: "x.example", max_hops: 5 }))).toBe(15_000);
    expect(probeBudgetMs(buildSpec("traceroute", { host: "x.example", max_hops: 64 }))).toBe(60_000);
  });
});

describe("pickSpread among equals", () => {
  it("gives equal nodes the same chance, however they are grouped by country, region and provider", () => {
    // Three equal nodes in one group, one in another: each should win a quarter of single picks.
    const nodes = [
      node("de-1", "DE", "r", "p"),
      node("de-2", "DE", "r", "p"),
      node("de-3", "DE", "r", "p"),
      node("us-1", "US", "r", "p"),
    ];
    const wins = new Map<string, number>();
    for (let i = 0; i < 4000; i++) {
      const [n] = pickSpread(nodes, 1, load);
      wins.set(n!.id, (wins.get(n!.id) ?? 0) + 1);
    }
    // Expected 1,000 each (standard deviation 27): far from the bounds unless the draw is biased.
    for (const n of nodes) expect(wins.get(n.id), n.id).toBeGreaterThan(700);
  });
});

describe("selectNodes over one snapshot", () => {
  const directoryOf = (nodes: NodeState[]): NodeDirectory => ({
    list: async () => nodes,
    reserve: () => {},
    release: () => {},
    pending: () => 0,
    markOffline: () => {},
  });

  it("a node whose heartbeat goes stale is not picked, though the snapshot is the same", async () => {
    const now = Date.now();
    const directory = directoryOf([
      { ...node("old", "DE", "r", "p"), lastSeen: now - 10_000 },
      { ...node("new", "US", "r2", "p2"), lastSeen: now },
    ]);
    const pick = async (at: number) =>
      (await selectNodes(directory, { type: "tcp", count: 3, offlineAfterMs: 15_000, now: at })).map(
        (n) => n.id,
      );
    expect((await pick(now)).sort()).toEqual(["new", "old"]);
    expect(await pick(now + 6000)).toEqual(["new"]);
    // An earlier time again (a caller's own `now`): what was online then.
    expect((await pick(now)).sort()).toEqual(["new", "old"]);
    await expect(pick(now + 20_000)).rejects.toMatchObject({ code: "no_nodes_available" });
  });

  it("picks by probe type and target family from the same snapshot; named ids are looked up in it", async () => {
    const directory = directoryOf([
      { ...node("v4", "DE", "r", "p"), capabilities: ["ipv4", "tcp"] },
      { ...node("v6", "US", "r2", "p2"), capabilities: ["ipv4", "ipv6", "tcp", "ping"] },
    ]);
    const ids = async (opts: Partial<Parameters<typeof selectNodes>[1]>) =>
      (await selectNodes(directory, { type: "tcp", count: 3, offlineAfterMs: 15_000, ...opts }))
        .map((n) => n.id)
        .sort();
    expect(await ids({})).toEqual(["v4", "v6"]);
    expect(await ids({ type: "ping" })).toEqual(["v6"]);
    expect(await ids({ family: 6 })).toEqual(["v6"]);
    expect(await ids({ type: "tcp" })).toEqual(["v4", "v6"]);
    expect(await ids({ requested: { ids: ["v4", "v4"], field: "nodes" } })).toEqual(["v4"]);
    await expect(ids({ requested: { ids: ["v4", "nope"], field: "nodes" } })).rejects.toMatchObject({
      code: "validation_error",
      message: 'body.nodes.1: unknown node id "nope"',
    });
  });
});
