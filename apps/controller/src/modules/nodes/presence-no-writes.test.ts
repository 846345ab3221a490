import { PROTOCOL_VERSION } from "@vantage/protocol";
import { captureLog } from "@vantage/testing";
import { InProcessBus } from "@vantage/transport";
import { describe, expect, it } from "vitest";
import { heartbeatOf, settle } from "../../testing/agents.js";
import { dbKinds } from "../../testing/test-app.js";
import { usePgCluster } from "../../testing/use-pg-cluster.js";
import { useTestDb } from "../../testing/use-test-db.js";
import { isOnline, type NodeState } from "./directory.js";
import { type PresenceOptions, startPresence } from "./presence.js";

/**
 * The directory of a controller that picks nodes without the presence role (`writes: false`): the same
 * nodes from the same heartbeats, nothing written, told or logged that the presence role does; and every
 * directory's load of the known nodes, which a database outage delays but never blocks.
 */

/** The offline time of the first test: short, yet far above a loaded machine's pause between two steps. */
const offlineAfterMs = 1000;
const statusOf = (nodes: readonly NodeState[], id: string) => {
  const n = nodes.find((x) => x.id === id);
  return n && (isOnline(n, offlineAfterMs) ? "online" : "offline");
};

describe.each(dbKinds)("a directory without writes on %s", (kind) => {
  const db = useTestDb(kind);
  const watched = (opts: Partial<PresenceOptions> = {}) => {
    const bus = new InProcessBus();
    const { log, lines } = captureLog("info");
    const presence = startPresence({
      db: db.testDb.db.kysely,
      transport: bus.controller(),
      log,
      writes: false,
      offlineAfterMs,
      flushIntervalMs: 20,
      ...opts,
    });
    return { lines, presence, link: bus.agent() };
  };
  const rows = async (prefix: string) =>
    (
      await db.testDb.db.kysely.selectFrom("nodes").select("id").where("id", "like", `${prefix}%`).execute()
    ).map((r) => r.id);

  it("lists the nodes it hears, and writes, tells and logs nothing the presence role does", async () => {
    const { lines, presence, link } = watched();
    const notices: string[] = [];
    link.serveJobs("nw-old", async () => {
      notices.push("nw-old");
      return undefined;
    });
    try {
      await presence.ready;
      link.publishHeartbeat("nw-1", heartbeatOf({ id: "nw-1" }));
      link.publishHeartbeat("nw-2", heartbeatOf({ id: "nw-2" }, { draining: true }));
      link.publishHeartbeat("nw-old", { ...heartbeatOf({ id: "nw-old" }), v: PROTOCOL_VERSION + 1 });
      link.publishHeartbeat("nw-bad", { ...heartbeatOf({ id: "nw-bad" }), max_jobs: 0 });
      link.publishHeartbeat("nw-3", heartbeatOf({ id: "nw-other" }));
      await settle();
      const heard = await presence.list();
      expect(heard.map((n) => n.id)).toEqual(["nw-1", "nw-2"]);
      expect(statusOf(heard, "nw-1")).toBe("online");
      expect(statusOf(heard, "nw-2")).toBe("offline");

      // nw-1 goes quiet past the offline time; the flush timer runs meanwhile.
      await new Promise((r) => setTimeout(r, offlineAfterMs + 300));
      await presence.flush();
      expect(statusOf(await presence.list(), "nw-1")).toBe("offline");
      link.publishHeartbeat("nw-1", heartbeatOf({ id: "nw-1" }));
      await settle();
      expect(statusOf(await presence.list(), "nw-1")).toBe("online");

      expect(await rows("nw-")).toEqual([]);
      expect(notices).toEqual([]);
      expect(lines).toEqual([]);
    } finally {
      await presence.stop();
      await link.close();
    }
  });

  it("keeps a probe's offline mark (logged) until the node's next heartbeat", async () => {
    const { lines, presence, link } = watched({ offlineAfterMs: 15_000 });
    try {
      link.publishHeartbeat("mk-1", heartbeatOf({ id: "mk-1" }));
      link.publishHeartbeat("mk-2", heartbeatOf({ id: "mk-2" }));
      await settle();
      const before = await presence.list();
      presence.markOffline("mk-1");
      presence.markOffline("mk-1"); // already marked: one line
      presence.markOffline("ghost"); // never heard of: ignored
      const marked = await presence.list();
      expect(marked).not.toBe(before);
      expect(marked.map((n) => [n.id, isOnline(n, 15_000)])).toEqual([
        ["mk-1", false],
        ["mk-2", true],
      ]);
      link.publishHeartbeat("mk-1", heartbeatOf({ id: "mk-1" }));
      await settle();
      expect((await presence.list()).every((n) => isOnline(n, 15_000))).toBe(true);
      expect(lines.map((l) => [l.level, l.node_id, l.msg])).toEqual([
        [40, "mk-1", expect.stringMatching(/^node marked offline by a probe/)],
        [30, "mk-1", "node back online: heartbeat after a probe found it offline"],
      ]);
    } finally {
      await presence.stop();
      await link.close();
    }
  });

  it("startWriting: from then on as the presence role, writing and logging", async () => {
    const { lines, presence, link } = watched({ offlineAfterMs: 15_000 });
    try {
      link.publishHeartbeat("sw-1", heartbeatOf({ id: "sw-1" }));
      await settle();
      await presence.flush();
      expect(await rows("sw-")).toEqual([]);
      presence.startWriting();
      link.publishHeartbeat("sw-1", heartbeatOf({ id: "sw-1" }));
      link.publishHeartbeat("sw-2", heartbeatOf({ id: "sw-2" }));
      await settle();
      await presence.flush();
      expect((await rows("sw-")).sort()).toEqual(["sw-1", "sw-2"]);
      expect(lines.map((l) => [l.node_id, l.msg])).toEqual([["sw-2", "node registered"]]);
    } finally {
      await presence.stop();
      await link.close();
    }
  });
});

describe("loading the known nodes while PostgreSQL is away", () => {
  const pg = usePgCluster();

  it("serves heartbeats at once, loads the table in the background once it is back; the heard win", async () => {
    const kysely = pg.db.kysely;
    const hourAgo = new Date(Date.now() - 3_600_000);
    const row = (id: string) => ({
      id,
      name: `Node ${id}`,
      country: "DE",
      region: "eu-central",
      provider: "test",
      version: "0.1.0-test",
      protocol_version: PROTOCOL_VERSION,
      capabilities: JSON.stringify(["ipv4"]),
      last_seen: hourAgo,
    });
    await kysely
      .insertInto("nodes")
      .values([row("ld-gone"), row("ld-live")])
      .execute();
    await pg.cluster.stop();

    const bus = new InProcessBus();
    const { log, lines } = captureLog("info");
    const presence = startPresence({
      db: kysely,
      transport: bus.controller(),
      log,
      writes: false,
      loadRetryMs: 100,
    });
    const link = bus.agent();
    try {
      link.publishHeartbeat("ld-live", heartbeatOf({ id: "ld-live" }));
      await settle();
      // The first load fails; the directory answers with what it heard.
      await presence.ready;
      const during = await presence.list();
      expect(during.map((n) => [n.id, isOnline(n, 15_000)])).toEqual([["ld-live", true]]);
      expect(presence.peek?.()).toBe(during);
      expect(lines.map((l) => l.msg)).toEqual([expect.stringMatching(/^loading known nodes failed/)]);

      // Still away a while later: the retries say nothing more.
      await new Promise((r) => setTimeout(r, 500));
      expect(lines).toHaveLength(1);

      await pg.cluster.start();
      const deadline = Date.now() + 20_000;
      while (!(await presence.list()).some((n) => n.id === "ld-gone")) {
        if (Date.now() > deadline) throw new Error("the known nodes were not loaded within 20 s");
        await new Promise((r) => setTimeout(r, 50));
      }
      const after = await presence.list();
      // The row of a node heard since does not replace what was heard.
      expect(after.map((n) => [n.id, isOnline(n, 15_000)])).toEqual([
        ["ld-live", true],
        ["ld-gone", false],
      ]);
      expect(lines.at(-1)).toMatchObject({ level: 30, msg: "known nodes loaded", nodes: 2 });
    } finally {
      await presence.stop();
      await link.close();
    }
  }, 60_000);
});
