import { describe, expect, it } from "vitest";
import { doneReply, serveNode, settle } from "../../testing/agents.js";
import { tcpResult } from "../../testing/probe-requests.js";
import { dbKinds } from "../../testing/test-app.js";
import { useTestDb } from "../../testing/use-test-db.js";
import { findTask, insertResult, insertTask, newTaskId, setTaskStatus } from "./repo.js";

/** Form A's task life as a poller sees it: queued at once, running with results as they come, then done. */
describe.each(dbKinds)("form A task states on %s", (kind) => {
  const db = useTestDb(kind);

  it("queued → running (the quick node's result already readable) → done with every entry", async () => {
    const t = await db.freshApp("a");
    let release: () => void = () => {};
    const held = new Promise<void>((r) => {
      release = r;
    });
    let jobsSeen = 0;
    let seen: () => void = () => {};
    const bothArrived = new Promise<void>((r) => {
      seen = r;
    });
    const count = () => {
      if (++jobsSeen === 2) seen();
    };
    serveNode(t.bus, { id: "quick", country: "DE" }, (job) => {
      count();
      return doneReply(job, 2);
    });
    serveNode(t.bus, { id: "slow", country: "US" }, async (job) => {
      count();
      await held;
      return doneReply(job, 40);
    });
    await settle();

    const created = await t.call("POST", "/v1/probe/tcp", {
      body: { target: "example.com:443", node_ids: ["quick", "slow"] },
    });
    expect(created.status).toBe(202);
    const id = created.body.data.task_id as string;
    const first = await t.call("GET", `/v1/probe/tasks/${id}`);
    expect(first.status).toBe(200);
    expect(["queued", "running"]).toContain(first.body.data.status);
    expect(first.body.data.finished_at).toBeNull();

    await bothArrived;
    // The quick node's result is stored as it arrives, while the slow one still holds its job.
    let running = first;
    for (let i = 0; i < 100 && running.body.data.results.length < 1; i++) {
      await new Promise((r) => setTimeout(r, 10));
      running = await t.call("GET", `/v1/probe/tasks/${id}`);
    }
    expect(running.body.data.status).toBe("running");
    expect(running.body.data.finished_at).toBeNull();
    expect(running.body.data.results.map((r: { node_id: string }) => r.node_id)).toEqual(["quick"]);

    release();
    let done = running;
    for (let i = 0; i < 100 && done.body.data.status !== "done"; i++) {
      await new Promise((r) => setTimeout(r, 10));
      done = await t.call("GET", `/v1/probe/tasks/${id}`);
    }
    expect(done.body.data.status).toBe("done");
    expect(done.body.data.finished_at).toMatch(/Z$/);
    expect(
      done.body.data.results.map((r: { node_id: string; latency_ms: number }) => [r.node_id, r.latency_ms]),
    ).toEqual([
      ["quick", 2],
      ["slow", 40],
    ]);
  });
});

// On PostgreSQL a second connection can write while a task is read (PGlite has one connection).
describe("a Form A task read while its first result is stored", () => {
  const fixture = useTestDb("postgres");

  it("is read in one statement: the task and its results as they were together", async () => {
    const db = fixture.testDb.db.kysely;
    const id = newTaskId();
    const spec = { type: "tcp", params: { host: "example.com", port: 443, timeout_ms: 5000 } };
    const base = { id, type: "tcp", target: "example.com", spec, ownerId: null, createdAt: new Date() };
    await insertTask(db, { ...base, nodeIds: ["quick", "slow"] }, "queued");
    // The dispatch's two writes (running, then the quick node's result) land right after the read's first
    // statement, as they did between two reads on a loaded CI machine (which then read `queued` with a result).
    let statements = 0;
    let wrote = false;
    const skewed = db.withPlugin({
      transformQuery: (args) => {
        statements++;
        return args.node;
      },
      transformResult: async (args) => {
        if (!wrote) {
          wrote = true;
          await setTaskStatus(db, id, "running");
          await insertResult(db, id, tcpResult("quick", 0));
        }
        return args.result;
      },
    });
    const before = await findTask(skewed, id);
    expect(wrote).toBe(true);
    expect(statements).toBe(1);
    expect(before?.status).toBe("queued");
    expect(before?.results).toEqual([]);
    const after = await findTask(db, id);
    expect(after?.status).toBe("running");
    expect(after?.results.map((r) => r.node_id)).toEqual(["quick"]);
    expect(after?.finished_at).toBeNull();
  });
});
