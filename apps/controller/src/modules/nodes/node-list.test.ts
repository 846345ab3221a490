import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type NodeDirectory, type NodeState, PendingJobs } from "./directory.js";
import { NodeList, toNodeViews } from "./node-list.js";

const node = (id: string, lastSeen: number, extra: Partial<NodeState> = {}): NodeState => ({
  id,
  name: `Node ${id}`,
  country: "DE",
  region: "eu-central",
  provider: "test",
  version: "1.0.0",
  capabilities: ["ipv4", "tcp"],
  runningJobs: 0,
  maxJobs: 10,
  lastSeen,
  draining: false,
  ...extra,
});

/** A directory whose snapshot the test replaces. */
function fakeDirectory(initial: NodeState[]) {
  let snapshot: readonly NodeState[] = initial;
  const jobs = new PendingJobs();
  const directory: NodeDirectory = {
    list: async () => snapshot,
    reserve: (id) => jobs.reserve(id),
    release: (id) => jobs.release(id),
    pending: (id) => jobs.pending(id),
    markOffline: () => {},
  };
  return {
    directory,
    set(nodes: NodeState[]) {
      snapshot = nodes;
    },
  };
}

describe("NodeList", () => {
  const offlineAfterMs = 15_000;

  it("serves what serialising the views per request would, the same text while the snapshot stays", async () => {
    const now = Date.now();
    const nodes = [
      node("b", now),
      node("a", now - 20_000),
      node("c", now, { draining: true }),
      node("d", now, { markedOfflineAt: now }),
    ];
    const { directory, set } = fakeDirectory(nodes);
    const list = new NodeList(directory, offlineAfterMs);
    const first = await list.json();
    expect(first).toBe(JSON.stringify({ items: toNodeViews(nodes, offlineAfterMs) }));
    expect(await list.json()).toBe(first);

    // A heartbeat: a new snapshot with a new state object for that node.
    const later = [{ ...nodes[0]!, lastSeen: now + 1000, runningJobs: 3 }, ...nodes.slice(1)];
    set(later);
    const second = await list.json();
    expect(second).not.toBe(first);
    expect(JSON.parse(second)).toEqual({ items: toNodeViews(later, offlineAfterMs) });
  });

  it("peekJson answers as json() when the directory has its snapshot at hand, else nothing", async () => {
    const nodes = [node("a", Date.now())];
    const { directory } = fakeDirectory(nodes);
    expect(new NodeList(directory, offlineAfterMs).peekJson()).toBeUndefined();
    const list = new NodeList({ ...directory, peek: () => nodes }, offlineAfterMs);
    const peeked = list.peekJson();
    expect(peeked).toBe(await list.json());
    expect(peeked).toBe(JSON.stringify({ items: toNodeViews(nodes, offlineAfterMs) }));
  });

  it("a node whose heartbeat goes stale is offline without a new snapshot", async () => {
    const { directory } = fakeDirectory([node("a", Date.now() - 1000 + 60), node("b", Date.now())]);
    const list = new NodeList(directory, 1000);
    const status = async () =>
      (JSON.parse(await list.json()) as { items: Array<{ id: string; status: string }> }).items.map(
        (n) => `${n.id}:${n.status}`,
      );
    expect(await status()).toEqual(["a:online", "b:online"]);
    await new Promise((r) => setTimeout(r, 120));
    expect(await status()).toEqual(["a:offline", "b:online"]);
  });

  it("filters and pages over the id order", async () => {
    const now = Date.now();
    const { directory } = fakeDirectory([
      node("z", now, { country: "US" }),
      node("y", now - 60_000, { country: "US" }),
      node("x", now),
    ]);
    const list = new NodeList(directory, offlineAfterMs);
    const parse = async (...args: Parameters<NodeList["json"]>) => JSON.parse(await list.json(...args));
    expect((await parse({ country: "US" })).items.map((n: { id: string }) => n.id)).toEqual(["y", "z"]);
    expect(
      await parse({ country: "US", status: "online" }, { page: 1, size: 5, sizeField: "per_page" }),
    ).toEqual({
      items: [expect.objectContaining({ id: "z", status: "online" })],
      total: 1,
      page: 1,
      per_page: 5,
    });
    expect(await parse(undefined, { page: 2, size: 2, sizeField: "limit" })).toEqual({
      items: [expect.objectContaining({ id: "z" })],
      total: 3,
      page: 2,
      limit: 2,
    });
  });

  it("over any sequence of snapshots (nodes added, removed, reordered, changed, marked) answers as serialising afresh", async () => {
    const base = Date.now();
    const change = fc.record({
      kind: fc.constantFrom("beat", "rename", "caps", "drain", "mark", "add", "remove", "reverse", "same"),
      at: fc.nat(),
      // Fresh, aging, or long offline: no node expires while the property runs (for well under 10 s).
      ago: fc.constantFrom(0, 5000, 20_000, 30_000),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(change, { minLength: 1, maxLength: 30 }), async (changes) => {
        let nodes = ["n3", "n1", "n2", "n5"].map((id) => node(id, base));
        const { directory, set } = fakeDirectory(nodes);
        const list = new NodeList(directory, offlineAfterMs);
        for (const c of changes) {
          const i = nodes.length > 0 ? c.at % nodes.length : 0;
          const n = nodes[i];
          const next = [...nodes];
          if (c.kind === "add") next.push(node(`x${c.at}`, base - c.ago));
          else if (c.kind === "reverse") next.reverse();
          else if (c.kind === "same") {
            // the same snapshot array again
          } else if (n) {
            if (c.kind === "beat") next[i] = { ...n, lastSeen: base - c.ago, runningJobs: c.at % 10 };
            else if (c.kind === "rename") next[i] = { ...n, name: `Renamed "${c.at}" ✓` };
            else if (c.kind === "caps") next[i] = { ...n, capabilities: c.at % 2 ? ["ipv6"] : [] };
            else if (c.kind === "drain") next[i] = { ...n, draining: !n.draining };
            else if (c.kind === "mark") next[i] = { ...n, markedOfflineAt: base };
            else if (c.kind === "remove") next.splice(i, 1);
          }
          if (c.kind !== "same") {
            nodes = next.filter((x, k) => next.findIndex((y) => y.id === x.id) === k);
            set(nodes);
          }
          const now = Date.now();
          const got = await list.json();
          expect(got).toBe(JSON.stringify({ items: toNodeViews(nodes, offlineAfterMs, now) }));
        }
      }),
      { numRuns: 200 },
    );
  });
});
