import { freePort } from "@vantage/testing";
import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { connectDb } from "../../db/connect.js";
import { serveNode, settle } from "../../testing/agents.js";
import { tcpBody, tcpResult } from "../../testing/probe-requests.js";
import { dbKinds, openTestDb } from "../../testing/test-app.js";
import { useTestDb } from "../../testing/use-test-db.js";
import { BackgroundWork } from "./background.js";
import { findTask, insertTask, newTaskId, type TaskRecord } from "./repo.js";
import { ResultWriter, UNWRITTEN_GRACE_MS } from "./result-writer.js";
import { getProbeTask, type ProbeDeps, runProbeTask } from "./service.js";
import { ABANDONED_AFTER_MS, startTaskSweeper } from "./sweeper.js";

/** Form B's write-behind (ADR 0003), the cross-controller read of an unwritten task, and the sweep. */

function logSink() {
  const lines: { level: number; msg: string; task_ids?: string[] }[] = [];
  const log = pino({ level: "info" }, { write: (s: string) => void lines.push(JSON.parse(s)) });
  return { log, lines };
}

function task(id = newTaskId()): TaskRecord {
  const created = new Date();
  return {
    id,
    type: "tcp",
    target: "example.com",
    spec: { type: "tcp", params: { host: "example.com", port: 443, timeout_ms: 5000 } },
    owner_id: null,
    node_ids: ["n1", "n2"],
    status: "done",
    created_at: created,
    finished_at: new Date(created.getTime() + 3),
    results: [tcpResult("n1", 0), tcpResult("n2", 1)],
  };
}

describe.each(dbKinds)("Form B result writes on %s", (kind) => {
  const fixture = useTestDb(kind);
  const kysely = () => fixture.testDb.db.kysely;
  const depsWith = (writer: ResultWriter) => ({ db: kysely(), writer }) as unknown as ProbeDeps;

  it("answers first; the task is read from memory at once, from the database after the write, the same", async () => {
    const t = await fixture.freshApp("b");
    serveNode(t.bus, { id: "n1" });
    serveNode(t.bus, { id: "n2" });
    await settle();
    const created = await t.call("POST", "/v1/probe/tcp", { body: tcpBody("b", "example.com", 443) });
    expect(created.status).toBe(200);
    const id = created.body.data.task_id as string;
    const early = await t.call("GET", `/v1/probe/tasks/${id}`);
    expect(early.status).toBe(200);
    await t.drain();
    const stored = await findTask(kysely(), id);
    expect(stored?.status).toBe("done");
    expect(stored?.results.map((r) => r.node_id).sort()).toEqual(["n1", "n2"]);
    // Another controller over the same database reads what this one answered.
    const other = fixture.app("b");
    const late = await other.call("GET", `/v1/probe/tasks/${id}`);
    expect(late.status).toBe(200);
    expect(late.body.data).toEqual(early.body.data);
    expect(late.body.data.results).toEqual(created.body.data.results);
  });

  it("another controller finds a task whose write is still in the first one's buffer", async () => {
    const first = new ResultWriter(kysely(), new BackgroundWork(), pino({ level: "silent" }), {
      flushDelayMs: 100,
    });
    const second = new ResultWriter(kysely(), new BackgroundWork(), pino({ level: "silent" }));
    const t = task();
    await first.write(t);
    expect(await findTask(kysely(), t.id)).toBeUndefined();
    const found = await getProbeTask(depsWith(second), t.id, undefined);
    expect(found.id).toBe(t.id);
    expect(found.results).toHaveLength(2);
  });

  it("a recent id that nobody wrote is a 404 after the grace; an old or foreign one at once", async () => {
    const deps = depsWith(new ResultWriter(kysely(), new BackgroundWork(), pino({ level: "silent" })));
    const start = Date.now();
    await expect(getProbeTask(deps, newTaskId(), undefined)).rejects.toMatchObject({ code: "not_found" });
    expect(Date.now() - start).toBeGreaterThanOrEqual(UNWRITTEN_GRACE_MS);
    const old = newTaskId(Date.now() - ABANDONED_AFTER_MS - 60_000);
    const again = Date.now();
    await expect(getProbeTask(deps, old, undefined)).rejects.toMatchObject({ code: "not_found" });
    await expect(getProbeTask(deps, "task_doesnotexist", undefined)).rejects.toMatchObject({
      code: "not_found",
    });
    expect(Date.now() - again).toBeLessThan(UNWRITTEN_GRACE_MS);
  });

  it("batches tasks; a task the database refuses is logged and does not sink the rest of its batch", async () => {
    const { log, lines } = logSink();
    const background = new BackgroundWork();
    const writer = new ResultWriter(kysely(), background, log, { flushDelayMs: 20 });
    // PostgreSQL text cannot hold U+0000 (the API refuses it before this point; the writer must cope).
    const dup = { ...task(), target: "nul \u0000 byte" };
    const good = [task(), task(), task()];
    writer.write(dup);
    for (const g of good) writer.write(g);
    expect(writer.backlog).toBe(4);
    await background.drain();
    expect(writer.backlog).toBe(0);
    for (const g of good) expect((await findTask(kysely(), g.id))?.results).toHaveLength(2);
    const refused = lines.filter((l) => l.level === 50);
    expect(refused).toHaveLength(1);
    expect(refused[0]?.task_ids).toEqual([dup.id]);
  });

  it("stores every value as given: quotes, braces, backslashes, commas, non-ASCII, the word NULL, nulls", async () => {
    const background = new BackgroundWork();
    const writer = new ResultWriter(kysely(), background, pino({ level: "silent" }));
    const odd = 'a "quoted", {braced} \\ back\\slash ü 日本 NULL';
    // Owned tasks belong to an account by foreign key.
    await kysely()
      .insertInto("users")
      .values({ id: "usr_{1}", email: `odd-${kind}@example.com`, password_hash: "x" } as never)
      .onConflict((oc) => oc.doNothing())
      .execute();
    const t: TaskRecord = {
      ...task(),
      target: "NULL",
      owner_id: "usr_{1}",
      results: [
        { ...tcpResult("NULL", 0), node_name: odd, detail: { body: odd, list: [1, null, "x,y"] } },
        {
          ...tcpResult("n,2", 1),
          success: false,
          latency_ms: null,
          duration_ms: 0.001,
          error: { code: "timeout", message: odd },
          detail: null,
        },
      ],
    };
    writer.write(t);
    await background.drain();
    const stored = await findTask(kysely(), t.id);
    expect(stored).toEqual({ ...t, owner_id: "usr_{1}" });
  });

  it("with the backlog full (database away), Form B refuses new probes with 503 at once; room again, it takes them", async () => {
    const gone = await openTestDb(kind);
    await gone.close();
    const background = new BackgroundWork();
    const writer = new ResultWriter(gone.db.kysely, background, pino({ level: "silent" }), {
      maxBacklog: 2,
      retryDelaysMs: [200],
    });
    writer.write(task());
    expect(writer.full).toBe(false);
    writer.write(task());
    expect(writer.full).toBe(true);
    const deps = { ...depsWith(writer), writer } as ProbeDeps;
    const req = { spec: {}, target: "x", paths: {}, caller: { kind: "ip", ip: "192.0.2.1" } } as never;
    const started = Date.now();
    await expect(runProbeTask(deps, req)).rejects.toMatchObject({
      code: "unavailable",
      status: 503,
      headers: { "Retry-After": "5" },
    });
    expect(Date.now() - started).toBeLessThan(100);
    // At shutdown the writes are given up (logged); the backlog empties and probes are taken again.
    writer.closing(0);
    await background.drain();
    expect(writer.backlog).toBe(0);
    expect(writer.full).toBe(false);
  });

  it("retries while the database is away for as long as it is; at shutdown gives up with an error naming the tasks", async () => {
    // Nothing listens on this port: every connection is refused, as while PostgreSQL is down.
    const away = await connectDb({
      databaseUrl: `postgres://postgres@127.0.0.1:${await freePort()}/vantage`,
      dataDir: "unused",
      maxConnections: 1,
    });
    const { log, lines } = logSink();
    const background = new BackgroundWork();
    const writer = new ResultWriter(away.kysely, background, log, {
      maxBacklog: 0,
      retryDelaysMs: [5, 5],
    });
    const t = task();
    writer.write(t);
    // Past its retry schedule (two delays) it goes on, every second at most, while the database is away.
    await new Promise((r) => setTimeout(r, 1500));
    expect(writer.peek(t.id)).toBeDefined();
    expect(lines.filter((l) => l.level === 50)).toEqual([]);
    writer.closing(0);
    await background.drain();
    expect(lines.filter((l) => l.level === 40).length).toBeGreaterThanOrEqual(2);
    expect(lines.filter((l) => l.level === 50).map((l) => l.task_ids)).toEqual([[t.id]]);
    expect(writer.peek(t.id)).toBeUndefined();
    await away.close();
  });

  it("the sweep fails tasks left queued or running long ago, and nothing else", async () => {
    const now = new Date();
    const at = (msAgo: number) => new Date(now.getTime() - msAgo);
    const base = { type: "tcp", target: "example.com", spec: {}, nodeIds: ["n1"], ownerId: null };
    const ids = {
      oldQueued: newTaskId(),
      oldRunning: newTaskId(),
      recent: newTaskId(),
      oldDone: newTaskId(),
    };
    await insertTask(
      kysely(),
      { ...base, id: ids.oldQueued, createdAt: at(ABANDONED_AFTER_MS + 1000) },
      "queued",
    );
    await insertTask(
      kysely(),
      { ...base, id: ids.oldRunning, createdAt: at(ABANDONED_AFTER_MS + 1000) },
      "running",
    );
    await insertTask(kysely(), { ...base, id: ids.recent, createdAt: at(60_000) }, "running");
    await insertTask(kysely(), { ...base, id: ids.oldDone, createdAt: at(ABANDONED_AFTER_MS * 2) }, "done");
    const { log, lines } = logSink();
    const sweeper = startTaskSweeper({ db: kysely(), log, poll: false });
    expect(await sweeper.runOnce(now)).toBe(2);
    await sweeper.stop();
    const status = async (id: string) => (await findTask(kysely(), id))?.status;
    expect(await status(ids.oldQueued)).toBe("failed");
    expect(await status(ids.oldRunning)).toBe("failed");
    expect(await status(ids.recent)).toBe("running");
    expect(await status(ids.oldDone)).toBe("done");
    expect(lines.some((l) => l.level === 40 && /marked failed/.test(l.msg))).toBe(true);
  });
});
