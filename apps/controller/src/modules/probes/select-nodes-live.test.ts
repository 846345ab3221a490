import { describe, expect, it } from "vitest";
import { LiveIndex, type NodeDirectory, type NodeState, PendingJobs } from "../nodes/index.js";
import { selectLocations } from "./select-locations.js";
import { selectNodes } from "./select-nodes.js";

const OFFLINE_AFTER = 15_000;

const node = (
  id: string,
  country: string,
  region: string,
  provider: string,
  over: Partial<NodeState> = {},
) => ({
  id,
  name: id,
  country,
  region,
  provider,
  version: "1",
  capabilities: [] as string[],
  runningJobs: 0,
  maxJobs: 10,
  lastSeen: Date.now(),
  draining: false,
  ...over,
});

/**
 * Two directories over the same nodes: one with the live index (as presence keeps it), one a fixed list
 * (the snapshot path). Node choice must follow the same rules on both.
 */
function directories(list: NodeState[]) {
  const nodes = new Map(list.map((n) => [n.id, n]));
  const jobs = new PendingJobs();
  const live = new LiveIndex(
    OFFLINE_AFTER,
    (id) => nodes.get(id),
    (id) => jobs.pending(id),
    async () => {},
  );
  for (const n of list) live.update(n);
  const base = {
    reserve(id: string) {
      jobs.reserve(id);
      live.reload(id);
    },
    release(id: string) {
      jobs.release(id);
      live.reload(id);
    },
    pending: (id: string) => jobs.pending(id),
    markOffline() {},
  };
  const withLive: NodeDirectory = { ...base, list: async () => [...nodes.values()], live };
  const fixed: NodeDirectory = { ...base, list: async () => [...nodes.values()] };
  const set = (n: NodeState) => {
    nodes.set(n.id, n);
    live.update(n);
  };
  return { withLive, fixed, set };
}

const pick = async (d: NodeDirectory, opts: Partial<Parameters<typeof selectNodes>[1]> = {}) =>
  (await selectNodes(d, { type: "tcp", count: 3, offlineAfterMs: OFFLINE_AFTER, ...opts })).map((n) => n.id);

describe("selectNodes from the live index", () => {
  it("spreads over countries, then regions, then providers, as from a snapshot", async () => {
    const { withLive, fixed } = directories([
      node("de-a", "DE", "eu-central", "hetzner"),
      node("de-b", "DE", "eu-central", "aws"),
      node("de-c", "DE", "eu-west", "hetzner"),
      node("us-a", "US", "us-east", "aws"),
    ]);
    for (const d of [withLive, fixed]) {
      for (let i = 0; i < 20; i++) {
        const ids = await pick(d);
        expect(ids.map((id) => id.slice(0, 2)).sort()).toEqual(["de", "de", "us"]);
        expect(ids).toContain("de-c");
      }
    }
  });

  it("least loaded first, counting this controller's pending jobs; full nodes last", async () => {
    const { withLive } = directories([
      node("busy", "DE", "r", "p", { runningJobs: 9 }),
      node("idle", "DE", "r", "p", { runningJobs: 1 }),
      node("full", "US", "r2", "p2", { runningJobs: 10 }),
    ]);
    expect(await pick(withLive, { count: 1 })).toEqual(["idle"]);
    expect(await pick(withLive, { count: 3 })).toEqual(["idle", "busy", "full"]);
    for (let i = 0; i < 9; i++) withLive.reserve("idle");
    expect(await pick(withLive, { count: 1 })).toEqual(["busy"]);
    for (let i = 0; i < 9; i++) withLive.release("idle");
    expect(await pick(withLive, { count: 1 })).toEqual(["idle"]);
  });

  it("equal nodes get the same chance however they are grouped", async () => {
    const { withLive } = directories([
      node("de-1", "DE", "r", "p"),
      node("de-2", "DE", "r", "p"),
      node("de-3", "DE", "r", "p"),
      node("us-1", "US", "r", "p"),
    ]);
    const wins = new Map<string, number>();
    for (let i = 0; i < 4000; i++) {
      const [id] = await pick(withLive, { count: 1 });
      wins.set(id!, (wins.get(id!) ?? 0) + 1);
    }
    // Expected 1,000 each (standard deviation 27).
    for (const id of ["de-1", "de-2", "de-3", "us-1"]) expect(wins.get(id), id).toBeGreaterThan(700);
  });

  it("by probe type and target family; all online nodes when none is capable; named ids looked up", async () => {
    const { withLive, set } = directories([
      node("v4", "DE", "r", "p", { capabilities: ["ipv4", "tcp"] }),
      node("v6", "US", "r2", "p2", { capabilities: ["ipv4", "ipv6", "tcp", "ping"] }),
    ]);
    const sorted = async (opts: Partial<Parameters<typeof selectNodes>[1]>) =>
      (await pick(withLive, opts)).sort();
    expect(await sorted({})).toEqual(["v4", "v6"]);
    expect(await sorted({ type: "ping" })).toEqual(["v6"]);
    expect(await sorted({ family: 6 })).toEqual(["v6"]);
    expect(await sorted({ type: "dns" })).toEqual(["v4", "v6"]); // nobody advertises dns: all of them
    expect(await sorted({ requested: { ids: ["v4", "v4"], field: "nodes" } })).toEqual(["v4"]);
    await expect(sorted({ requested: { ids: ["v4", "nope"], field: "nodes" } })).rejects.toMatchObject({
      code: "validation_error",
      message: 'body.nodes.1: unknown node id "nope"',
    });
    // The only ping node drains: ping falls back to every online node; named, it is known but offline.
    set(node("v6", "US", "r2", "p2", { capabilities: ["ipv4", "ipv6", "tcp", "ping"], draining: true }));
    expect(await sorted({ type: "ping" })).toEqual(["v4"]);
    expect(
      await selectNodes(withLive, {
        type: "ping",
        count: 3,
        offlineAfterMs: OFFLINE_AFTER,
        requested: { ids: ["v6"], field: "nodes" },
      }),
    ).toEqual([{ id: "v6", name: "v6", online: false }]);
    // A new node joins; a node moves country.
    set(node("fr", "FR", "r3", "p3", { capabilities: ["ipv4", "ping"] }));
    set(node("v4", "JP", "r4", "p", { capabilities: ["ipv4", "tcp"] }));
    expect(await sorted({ type: "ping" })).toEqual(["fr"]);
    // fr advertises probe types without tcp: not a tcp node.
    expect(await sorted({ type: "tcp" })).toEqual(["v4"]);
  });

  it("a node whose heartbeat goes stale is not picked; none online is no_nodes_available", async () => {
    const now = Date.now();
    const { withLive } = directories([
      node("old", "DE", "r", "p", { lastSeen: now - OFFLINE_AFTER - 1 }),
      node("new", "US", "r2", "p2"),
    ]);
    expect(await pick(withLive)).toEqual(["new"]);
    const empty = directories([node("gone", "DE", "r", "p", { lastSeen: now - OFFLINE_AFTER - 1 })]);
    await expect(pick(empty.withLive)).rejects.toMatchObject({ code: "no_nodes_available" });
  });

  it("a pick leaves the index as it was: repeated picks of every node find every node", async () => {
    const list = Array.from({ length: 40 }, (_, i) =>
      node(`n${i}`, ["DE", "US"][i % 2]!, `r${i % 3}`, `p${i % 5}`),
    );
    const { withLive } = directories(list);
    for (let i = 0; i < 5; i++)
      expect((await pick(withLive, { count: 50 })).sort()).toEqual(list.map((n) => n.id).sort());
  });
});

describe("selectLocations, from the live index and from a snapshot alike", () => {
  const places = [
    node("de-a", "DE", "eu-central", "hetzner"),
    node("de-b", "DE", "eu-central", "aws", { capabilities: ["ipv4", "ipv6", "tcp"] }),
    node("fr-a", "FR", "eu-west", "ovh"),
    node("gb-a", "GB", "eu-west", "aws"),
    node("us-a", "US", "us-east", "aws", { asn: 13335, tags: ["eyeball"] }),
    node("jp-a", "JP", "ap-northeast", "gcp", { asn: 13335 }),
  ];
  const byPlace = async (d: NodeDirectory, entries: { selector: string; count: number }[]) =>
    (
      await selectLocations(d, {
        type: "tcp",
        locations: { entries, field: "locations" },
        offlineAfterMs: OFFLINE_AFTER,
      })
    )
      .map((n) => n.id)
      .sort();

  it("matches places, networks and tags; each entry its count; no node twice", async () => {
    const { withLive, fixed } = directories(places);
    for (const d of [withLive, fixed]) {
      expect(await byPlace(d, [{ selector: "europe", count: 9 }])).toEqual(["de-a", "de-b", "fr-a", "gb-a"]);
      expect(await byPlace(d, [{ selector: "germany+ipv6", count: 2 }])).toEqual(["de-b"]);
      expect(await byPlace(d, [{ selector: "AS13335", count: 5 }])).toEqual(["jp-a", "us-a"]);
      expect(await byPlace(d, [{ selector: "eyeball+north-america", count: 5 }])).toEqual(["us-a"]);
      // Two of the three aws nodes, then every eu-west node not taken already.
      const alt = await byPlace(d, [
        { selector: "aws", count: 2 },
        { selector: "eu-west", count: 5 },
      ]);
      expect(new Set(alt).size).toBe(alt.length);
      expect(alt.filter((id) => ["de-b", "gb-a", "us-a"].includes(id)).length).toBeGreaterThanOrEqual(2);
      expect(alt).toEqual(expect.arrayContaining(["fr-a", "gb-a"]));
      const both = await byPlace(d, [
        { selector: "DE", count: 1 },
        { selector: "de", count: 5 },
      ]);
      expect(both).toEqual(["de-a", "de-b"]);
      // Spread: three of Europe's nodes are its three countries.
      for (let i = 0; i < 10; i++) {
        const three = await byPlace(d, [{ selector: "EU", count: 3 }]);
        expect(new Set(three.map((id) => id.slice(0, 2)))).toEqual(new Set(["de", "fr", "gb"]));
      }
    }
  });

  it("an unknown term is a 400 naming the entry; a place without nodes is no_nodes_available", async () => {
    const { withLive, fixed } = directories(places);
    for (const d of [withLive, fixed]) {
      await expect(
        byPlace(d, [
          { selector: "DE", count: 1 },
          { selector: "mars", count: 1 },
        ]),
      ).rejects.toMatchObject({
        code: "validation_error",
        details: [{ path: "body.locations.1" }],
      });
      await expect(byPlace(d, [{ selector: "AS64500", count: 1 }])).rejects.toMatchObject({
        code: "validation_error",
      });
      await expect(byPlace(d, [{ selector: "brazil", count: 1 }])).rejects.toMatchObject({
        code: "no_nodes_available",
      });
    }
  });
});
