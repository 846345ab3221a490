import { type Heartbeat, PROTOCOL_VERSION } from "@vantage/protocol";
import { InProcessBus } from "@vantage/transport";
import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { type FakeNode, heartbeatOf, settle } from "../../testing/agents.js";
import { dbKinds } from "../../testing/test-app.js";
import { useTestDb } from "../../testing/use-test-db.js";
import { isOnline, readNodeRows } from "./directory.js";
import { startPresence } from "./presence.js";

describe.each(dbKinds)("presence on %s", (kind) => {
  const db = useTestDb(kind);
  const fresh = (env: Record<string, string> = {}) => db.freshApp("b", env);

  it("registers a node from its heartbeat and lists it online with its fields", async () => {
    const t = await fresh();
    const link = t.bus.agent();
    link.publishHeartbeat("fra1", heartbeatOf({ id: "fra1", name: "Frankfurt 1", provider: "hetzner" }));
    await settle();
    await t.presence.flush();
    const res = await t.call("GET", "/v1/nodes");
    expect(res.status).toBe(200);
    expect(res.body.data.items).toEqual([
      {
        id: "fra1",
        name: "Frankfurt 1",
        country: "DE",
        region: "eu-central",
        provider: "hetzner",
        status: "online",
        last_seen: expect.stringMatching(/Z$/),
        version: "0.1.0-test",
        capabilities: expect.arrayContaining(["ipv4", "tcp"]),
        public_key: null,
      },
    ]);
    const row = await db.testDb.db.kysely.selectFrom("nodes").selectAll().executeTakeFirstOrThrow();
    expect(row).toMatchObject({ running_jobs: 0, max_jobs: 10, protocol_version: PROTOCOL_VERSION });
  });

  it("drops heartbeats whose payload names another node, or that are invalid, or of another version", async () => {
    const t = await fresh();
    const link = t.bus.agent();
    link.publishHeartbeat("fra1", heartbeatOf({ id: "evil" }));
    const fra2 = heartbeatOf({ id: "fra2" });
    link.publishHeartbeat("fra2", { ...fra2, node: { ...fra2.node, country: "Germany" } });
    link.publishHeartbeat("fra3", { ...heartbeatOf({ id: "fra3" }), v: PROTOCOL_VERSION + 1 });
    link.publishHeartbeat("fra3", { v: PROTOCOL_VERSION + 1 });
    link.publishHeartbeat("fra4", { ...heartbeatOf({ id: "fra4" }), max_jobs: 0 });
    await settle();
    await t.presence.flush();
    expect((await t.call("GET", "/v1/nodes")).body.data.items).toEqual([]);
    expect(await t.presence.list()).toEqual([]);
  });

  it("a draining heartbeat marks the node offline at once; the next normal one brings it back", async () => {
    const t = await fresh();
    const link = t.bus.agent();
    link.publishHeartbeat("n1", heartbeatOf({ id: "n1" }));
    await settle();
    link.publishHeartbeat("n1", heartbeatOf({ id: "n1" }, { draining: true }));
    await settle();
    await t.presence.flush();
    expect((await t.call("GET", "/v1/nodes")).body.data.items[0].status).toBe("offline");
    link.publishHeartbeat("n1", heartbeatOf({ id: "n1" }));
    await settle();
    await t.presence.flush();
    expect((await t.call("GET", "/v1/nodes")).body.data.items[0].status).toBe("online");
  });

  it("goes offline when heartbeats stop for VANTAGE_NODE_OFFLINE_AFTER_MS", async () => {
    const t = await fresh({ VANTAGE_NODE_OFFLINE_AFTER_MS: "1000" });
    t.bus.agent().publishHeartbeat("n1", heartbeatOf({ id: "n1" }));
    await settle();
    await t.presence.flush();
    expect((await t.call("GET", "/v1/nodes")).body.data.items[0].status).toBe("online");
    await new Promise((r) => setTimeout(r, 1100));
    expect((await t.call("GET", "/v1/nodes")).body.data.items[0].status).toBe("offline");
  });

  it("batches writes: many nodes' heartbeats become a few upserts, and the latest values win", async () => {
    const t = await fresh();
    const link = t.bus.agent();
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < 600; i++) {
        link.publishHeartbeat(`n${i}`, heartbeatOf({ id: `n${i}`, runningJobs: round }));
      }
      await settle();
    }
    await t.presence.flush();
    const rows = await db.testDb.db.kysely.selectFrom("nodes").select(["id", "running_jobs"]).execute();
    expect(rows).toHaveLength(600);
    expect(new Set(rows.map((r) => r.running_jobs))).toEqual(new Set([2]));
  });

  it("loads known nodes from the table at start, so a restarted controller knows them", async () => {
    const t = await fresh();
    t.bus.agent().publishHeartbeat("old1", heartbeatOf({ id: "old1" }));
    await settle();
    await t.presence.flush();
    const again = db.app("b");
    expect((await again.presence.list()).map((n) => n.id)).toEqual(["old1"]);
  });

  it("batched writes keep every node's status right: in memory, on a controller without presence, and in the table", async () => {
    // Long enough that 300 heartbeats, a flush and six list requests fit in it on a loaded machine.
    const offlineAfterMs = 3000;
    const env = { VANTAGE_NODE_OFFLINE_AFTER_MS: String(offlineAfterMs) };
    const t = await fresh(env);
    const api = db.app("b", env, { presence: false, bus: t.bus });
    const link = t.bus.agent();
    const ids = Array.from({ length: 300 }, (_, i) => `m${i}`);
    const beat = async (which: readonly string[], draining?: string) => {
      for (const id of which) link.publishHeartbeat(id, heartbeatOf({ id }, { draining: id === draining }));
      await settle();
      await t.presence.flush();
    };
    const totals = async (app: Pick<typeof t, "call">) => {
      const count = async (status: string) => {
        const res = await app.call("GET", `/v1/nodes?status=${status}&per_page=1`);
        expect(res.status).toBe(200);
        return res.body.data.total as number;
      };
      return { online: await count("online"), offline: await count("offline") };
    };
    // What a controller starting at `at` would load (the table is each directory's seed).
    const tableTotals = async (at: number) => {
      const rows = await readNodeRows(db.testDb.db.kysely);
      const online = rows.filter((n) => isOnline(n, offlineAfterMs, at)).length;
      return { online, offline: rows.length - online };
    };
    await beat(ids);
    let beaten = Date.now();
    expect(await totals(t)).toEqual({ online: 300, offline: 0 });
    expect(await totals(api)).toEqual({ online: 300, offline: 0 });
    expect(await tableTotals(beaten)).toEqual({ online: 300, offline: 0 });

    // m0 says goodbye, m1–m149 keep beating, m150–m299 stop.
    const alive = ids.slice(1, 150);
    await beat(["m0", ...alive], "m0");
    await new Promise((r) => setTimeout(r, offlineAfterMs + 100));
    await beat(alive);
    beaten = Date.now();
    expect(await totals(t)).toEqual({ online: 149, offline: 151 });
    expect(await totals(api)).toEqual({ online: 149, offline: 151 });
    expect(await tableTotals(beaten)).toEqual({ online: 149, offline: 151 });
    const rows = await db.testDb.db.kysely
      .selectFrom("nodes")
      .select(["id", "draining"])
      .where("draining", "=", true)
      .execute();
    expect(rows).toEqual([{ id: "m0", draining: true }]);
  });

  it("keeps a snapshot while only plain heartbeats arrive; a new node, a change or a node's return replace it at once", async () => {
    const bus = new InProcessBus();
    const presence = startPresence({
      db: db.testDb.db.kysely,
      transport: bus.controller(),
      log: pino({ level: "silent" }),
      offlineAfterMs: 600_000,
      snapshotMaxAgeMs: 60_000,
    });
    const link = bus.agent();
    const mine = async () => (await presence.list()).filter((n) => n.id.startsWith("coal-"));
    const send = async (id: string, node: Partial<FakeNode> = {}, extra: Partial<Heartbeat> = {}) => {
      link.publishHeartbeat(id, heartbeatOf({ id, ...node }, extra));
      await settle();
    };
    try {
      await send("coal-1");
      const first = await presence.list();
      await send("coal-1", { runningJobs: 2 });
      expect(await presence.list()).toBe(first); // only the load changed: the same snapshot

      await send("coal-2");
      const second = await presence.list();
      expect(second).not.toBe(first);
      expect((await mine()).map((n) => [n.id, n.runningJobs])).toEqual([
        ["coal-1", 2],
        ["coal-2", 0],
      ]);

      await send("coal-1", { runningJobs: 2, capabilities: ["ipv4", "tcp"] });
      const third = await presence.list();
      expect(third).not.toBe(second);
      expect(third.find((n) => n.id === "coal-1")?.capabilities).toEqual(["ipv4", "tcp"]);

      await send("coal-2", {}, { draining: true });
      const fourth = await presence.list();
      expect(fourth).not.toBe(third);
      expect(fourth.find((n) => n.id === "coal-2")?.draining).toBe(true);
      await send("coal-2");
      const fifth = await presence.list();
      expect(fifth).not.toBe(fourth);
      expect(fifth.find((n) => n.id === "coal-2")?.draining).toBe(false);

      presence.markOffline("coal-2");
      const marked = await presence.list();
      expect(marked.find((n) => n.id === "coal-2")?.markedOfflineAt).toBeDefined();
      await send("coal-2");
      const back = await presence.list();
      expect(back).not.toBe(marked);
      expect(back.find((n) => n.id === "coal-2")?.markedOfflineAt).toBeUndefined();
    } finally {
      await presence.stop();
    }
  });

  it("hands out a new snapshot for plain heartbeats once it is snapshotMaxAgeMs old, and at once for a node near its expiry", async () => {
    const bus = new InProcessBus();
    const silentLog = pino({ level: "silent" });
    const link = bus.agent();
    // No coalescing: every plain heartbeat shows in the next snapshot.
    const eager = startPresence({
      db: db.testDb.db.kysely,
      transport: bus.controller(),
      log: silentLog,
      snapshotMaxAgeMs: 0,
    });
    // Coalescing longer than the offline time: every heartbeat keeps its node from expiring, so none waits.
    const near = startPresence({
      db: db.testDb.db.kysely,
      transport: bus.controller(),
      log: silentLog,
      offlineAfterMs: 1000,
      snapshotMaxAgeMs: 60_000,
    });
    try {
      for (const presence of [eager, near]) {
        link.publishHeartbeat("age-1", heartbeatOf({ id: "age-1" }));
        await settle();
        const first = await presence.list();
        const seen = first.find((n) => n.id === "age-1")?.lastSeen ?? 0;
        await new Promise((r) => setTimeout(r, 5));
        link.publishHeartbeat("age-1", heartbeatOf({ id: "age-1", runningJobs: 1 }));
        await settle();
        const next = await presence.list();
        expect(next).not.toBe(first);
        expect(next.find((n) => n.id === "age-1")?.lastSeen).toBeGreaterThan(seen);
      }
    } finally {
      await eager.stop();
      await near.stop();
    }
  });
});
