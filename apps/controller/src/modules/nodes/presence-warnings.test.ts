import { PROTOCOL_VERSION, versionNoticeSchema } from "@vantage/protocol";
import { captureLog } from "@vantage/testing";
import { InProcessBus } from "@vantage/transport";
import { describe, expect, it } from "vitest";
import { heartbeatOf, settle } from "../../testing/agents.js";
import { dbKinds } from "../../testing/test-app.js";
import { useTestDb } from "../../testing/use-test-db.js";
import { type PresenceOptions, startPresence } from "./presence.js";

/** What presence tells operators and agents: nodes going quiet, heartbeats it drops, and how often. */
describe.each(dbKinds)("presence warnings on %s", (kind) => {
  const db = useTestDb(kind);
  /** Presence over an in-process bus, its log captured (info and up), and an agent link on that bus. */
  const watched = (opts: Partial<PresenceOptions> = {}) => {
    const bus = new InProcessBus();
    const { log, lines } = captureLog("info");
    const presence = startPresence({ db: db.testDb.db.kysely, transport: bus.controller(), log, ...opts });
    return { lines, presence, link: bus.agent() };
  };
  it("logs a node going quiet once (warn), and its return (info)", async () => {
    const { lines, presence, link } = watched({
      offlineAfterMs: 150,
      flushIntervalMs: 50,
    });
    try {
      link.publishHeartbeat("quiet1", heartbeatOf({ id: "quiet1" }));
      await settle();
      await new Promise((r) => setTimeout(r, 500));
      const offline = lines.filter((l) => l.node_id === "quiet1" && /node offline/.test(String(l.msg)));
      expect(offline).toHaveLength(1);
      expect(offline[0]).toMatchObject({ level: 40, msg: expect.stringMatching(/no heartbeat for \d+ s/) });
      link.publishHeartbeat("quiet1", heartbeatOf({ id: "quiet1" }));
      await settle();
      expect(
        lines.filter((l) => l.node_id === "quiet1" && l.msg === "node back online: heartbeats again"),
      ).toHaveLength(1);
    } finally {
      await presence.stop();
      await link.close();
    }
  });

  it("tells a node whose heartbeats it drops for their version, on its job subject, and warns; once a minute", async () => {
    const { lines, presence, link } = watched();
    const heard: Array<{ nodeId: string; message: unknown; replyExpected: boolean }> = [];
    for (const nodeId of ["fra5", "fra6"]) {
      link.serveJobs(nodeId, async (message, info) => {
        heard.push({ nodeId, message, replyExpected: info.replyExpected });
        return undefined;
      });
    }
    try {
      link.publishHeartbeat("fra5", { ...heartbeatOf({ id: "fra5" }), v: 99 });
      link.publishHeartbeat("fra5", { ...heartbeatOf({ id: "fra5" }), v: 99 });
      link.publishHeartbeat("fra6", heartbeatOf({ id: "fra6" }));
      await settle();
      expect(heard).toHaveLength(1);
      expect(heard[0]).toMatchObject({ nodeId: "fra5", replyExpected: false });
      expect(versionNoticeSchema.parse(heard[0]?.message)).toEqual({
        v: PROTOCOL_VERSION,
        notice: "incompatible_version",
        message: expect.stringMatching(/v1 .*v99/),
      });
      const warns = lines.filter((l) => l.level === 40);
      expect(warns).toHaveLength(1);
      expect(warns[0]).toMatchObject({ node_id: "fra5", version: 99, expected: PROTOCOL_VERSION });
      expect((await presence.list()).map((n) => n.id)).not.toContain("fra5");
    } finally {
      await presence.stop();
    }
  });

  it("logs heartbeats that fail validation as malformed (first issue), without a version notice; once a minute per node", async () => {
    const { lines, presence, link } = watched();
    const ids = ["bad1", "bad2", "bad3", "bad4", "bad5", "bad6"];
    const heard: string[] = [];
    for (const nodeId of ids) {
      link.serveJobs(nodeId, async () => {
        heard.push(nodeId);
        return undefined;
      });
    }
    try {
      const { v: _v, ...noVersion } = heartbeatOf({ id: "bad1" });
      for (let i = 0; i < 5; i++) link.publishHeartbeat("bad1", noVersion); // a broken agent: one line
      link.publishHeartbeat("bad2", { ...heartbeatOf({ id: "bad2" }), v: String(PROTOCOL_VERSION) });
      link.publishHeartbeat("bad3", { ...heartbeatOf({ id: "bad3" }), v: PROTOCOL_VERSION + 0.5 });
      link.publishHeartbeat("bad4", { ...heartbeatOf({ id: "bad4" }), max_jobs: 0 });
      link.publishHeartbeat("bad5", null);
      link.publishHeartbeat("bad6", [PROTOCOL_VERSION]);
      await settle();
      const warns = lines.filter((l) => l.level === 40);
      expect(warns.map((l) => [l.node_id, l.msg])).toEqual(
        ids.map((id) => [id, "malformed heartbeat dropped"]),
      );
      const issues = Object.fromEntries(warns.map((l) => [l.node_id, l.issue]));
      expect(issues).toEqual({
        bad1: expect.stringMatching(/^v: /),
        bad2: expect.stringMatching(/^v: /),
        bad3: expect.stringMatching(/^v: /),
        bad4: expect.stringMatching(/^max_jobs: /),
        bad5: expect.any(String),
        bad6: expect.any(String),
      });
      expect(lines.filter((l) => /protocol version/.test(String(l.msg)))).toEqual([]);
      expect(heard).toEqual([]);
      const known = (await presence.list()).map((n) => n.id);
      for (const id of ids) expect(known).not.toContain(id);
    } finally {
      await presence.stop();
    }
  });

  it("only a well-formed message of another version is logged as another protocol version", async () => {
    const { lines, presence, link } = watched();
    try {
      // Another version may have another shape: an integer `v` is all this controller can judge.
      link.publishHeartbeat("new1", { v: PROTOCOL_VERSION + 1, whatever: true });
      const { v: _v, ...noVersion } = heartbeatOf({ id: "new2" });
      link.publishHeartbeat("new2", noVersion);
      await settle();
      expect(lines.filter((l) => l.level === 40).map((l) => [l.node_id, l.msg])).toEqual([
        ["new1", expect.stringMatching(/^heartbeat with another protocol version/)],
        ["new2", "malformed heartbeat dropped"],
      ]);
    } finally {
      await presence.stop();
    }
  });

  it("repeats the malformed warning per node after the interval", async () => {
    const { lines, presence, link } = watched({
      // Long enough that the first two arrive within it on a loaded machine (50 ms did not, once).
      malformedLogIntervalMs: 400,
    });
    const malformed = () => lines.filter((l) => l.msg === "malformed heartbeat dropped").length;
    try {
      link.publishHeartbeat("bad7", { v: PROTOCOL_VERSION });
      link.publishHeartbeat("bad7", { v: PROTOCOL_VERSION });
      await settle();
      expect(malformed()).toBe(1);
      await new Promise((r) => setTimeout(r, 450));
      link.publishHeartbeat("bad7", { v: PROTOCOL_VERSION });
      link.publishHeartbeat("bad7", { v: PROTOCOL_VERSION });
      await settle();
      expect(malformed()).toBe(2);
    } finally {
      await presence.stop();
    }
  });

  it("repeats the version notice after the interval while the heartbeats keep coming", async () => {
    const { presence, link } = watched({
      // Long enough that the first two arrive within it on a loaded machine (50 ms did not, once).
      versionNoticeIntervalMs: 400,
    });
    let notices = 0;
    link.serveJobs("fra7", async () => {
      notices++;
      return undefined;
    });
    try {
      link.publishHeartbeat("fra7", { ...heartbeatOf({ id: "fra7" }), v: 99 });
      await settle();
      link.publishHeartbeat("fra7", { ...heartbeatOf({ id: "fra7" }), v: 99 });
      await settle();
      expect(notices).toBe(1);
      await new Promise((r) => setTimeout(r, 450));
      link.publishHeartbeat("fra7", { ...heartbeatOf({ id: "fra7" }), v: 99 });
      await settle();
      expect(notices).toBe(2);
    } finally {
      await presence.stop();
    }
  });
});
