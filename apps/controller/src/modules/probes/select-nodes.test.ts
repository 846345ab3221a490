import { describe, expect, it } from "vitest";
import type { NodeState } from "../nodes/index.js";
import { dispatchTimeoutMs, probeBudgetMs } from "./deadlines.js";
import { buildSpec } from "./fields.js";
import { pickSpread } from "./select-nodes.js";

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
