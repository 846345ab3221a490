import { captureLog } from "@vantage/testing";
import { describe, expect, it } from "vitest";
import { dbKinds } from "../../testing/test-app.js";
import { useTestDb } from "../../testing/use-test-db.js";
import { dbNodeDirectory, isOnline, type NodeState } from "./directory.js";

/** The table directory (controllers without the presence role) and a probe's offline mark. */
describe.each(dbKinds)("table directory on %s", (kind) => {
  const db = useTestDb(kind);

  const beat = async (id: string, lastSeen: number) => {
    await db.testDb.db.kysely
      .insertInto("nodes")
      .values({
        id,
        name: id,
        country: "DE",
        region: "eu-central",
        provider: "test",
        version: "0.1.0-test",
        protocol_version: 1,
        capabilities: JSON.stringify(["ipv4"]),
        last_seen: new Date(lastSeen),
      })
      .onConflict((oc) => oc.column("id").doUpdateSet({ last_seen: new Date(lastSeen) }))
      .execute();
  };
  const online = (nodes: readonly NodeState[], id: string) => {
    const n = nodes.find((x) => x.id === id);
    return n ? isOnline(n, 15_000) : undefined;
  };

  it("a mark is a new snapshot at once, outlives re-reads of older heartbeats, and a newer one ends it", async () => {
    await db.testDb.db.kysely.deleteFrom("nodes").execute();
    const { log, lines } = captureLog("info");
    const directory = dbNodeDirectory(db.testDb.db.kysely, { cacheMs: 0, log });
    const before = Date.now();
    await beat("a1", before - 500);
    await beat("a2", before - 500);

    const first = await directory.list();
    expect(online(first, "a1")).toBe(true);
    directory.markOffline("a1");
    directory.markOffline("ghost"); // not in the table: ignored
    const marked = await directory.list();
    expect(marked).not.toBe(first);
    expect(online(marked, "a1")).toBe(false);
    expect(online(marked, "a2")).toBe(true);
    expect(marked.find((n) => n.id === "a1")?.markedOfflineAt).toBeGreaterThanOrEqual(before);

    // Read again (no cache here), with a heartbeat received before the mark: still offline.
    await beat("a1", before - 100);
    expect(online(await directory.list(), "a1")).toBe(false);

    // A heartbeat received after the mark ends it.
    await beat("a1", Date.now() + 10);
    expect(online(await directory.list(), "a1")).toBe(true);
    expect(online(await directory.list(), "a1")).toBe(true);
    expect(lines.filter((l) => l.node_id === "a1").map((l) => [l.level, l.msg])).toEqual([
      [40, expect.stringMatching(/^node marked offline by a probe/)],
      [30, "node back online: heartbeat after a probe found it offline"],
    ]);
  });

  it("with the cache, the mark shows without waiting for the next read", async () => {
    await db.testDb.db.kysely.deleteFrom("nodes").execute();
    const directory = dbNodeDirectory(db.testDb.db.kysely, { cacheMs: 60_000 });
    await beat("b1", Date.now());
    const first = await directory.list();
    expect(await directory.list()).toBe(first); // cached: same snapshot
    directory.markOffline("b1");
    const marked = await directory.list();
    expect(marked).not.toBe(first);
    expect(online(marked, "b1")).toBe(false);
    expect(await directory.list()).toBe(marked);
  });
});
