import { pino } from "pino";
import { describe, expect, it } from "vitest";
import type { Listen } from "../../db/listen.js";
import { type SseEvent, SseReader } from "../../http/sse.js";
import { doneReply, serveNode, settle } from "../../testing/agents.js";
import type { ApiOnlyTestApp, TestApp } from "../../testing/test-app.js";
import { dbKinds } from "../../testing/test-app.js";
import { until } from "../../testing/until.js";
import { useTestDb } from "../../testing/use-test-db.js";
import { insertResult, insertTask, newTaskId, setTaskStatus, type TaskRecord } from "./repo.js";
import { TaskWatch } from "./task-watch.js";

/**
 * Live streams across controllers sharing the database: a GET stream on a controller that does not run the
 * task hears each result once the running controller has stored it (NOTIFY on `vantage_probe_results`),
 * and a change nobody announces (the sweeper failing a task) through the polling fallback.
 */

// biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON
const data = (e: SseEvent | undefined): any => JSON.parse(e?.data ?? "null");

async function openStream(t: TestApp | ApiOnlyTestApp, path: string) {
  const res = await t.app.request(path, { headers: { accept: "text/event-stream" } });
  if (!res.body) throw new Error("no body");
  return { res, events: new SseReader(res.body) };
}

/** A node holding its jobs until `release()`. */
function serveHeld(t: TestApp, id: string, latency: number) {
  let release: () => void = () => {};
  const held = new Promise<void>((r) => {
    release = r;
  });
  let arrived: () => void = () => {};
  const jobArrived = new Promise<void>((r) => {
    arrived = r;
  });
  const state = { answered: false };
  serveNode(t.bus, { id, country: "US" }, async (job) => {
    arrived();
    await held;
    state.answered = true;
    return doneReply(job, latency);
  });
  return { release, jobArrived, state };
}

const silent = pino({ level: "silent" });

describe.each(dbKinds)("live streams across controllers on %s", (kind) => {
  const db = useTestDb(kind);

  it("a GET stream on another controller gets each result as it is stored, before the task ends (form A)", async () => {
    const env = { VANTAGE_ALLOW_PRIVATE_TARGETS: "true" };
    const runner = await db.freshApp("a", env);
    // Another controller on the same database (and bus), without the presence role: it follows heartbeats.
    const other = db.app("a", env, { bus: runner.bus, presence: false });
    serveNode(runner.bus, { id: "fast", country: "DE" });
    const mid = serveHeld(runner, "mid", 20);
    const slow = serveHeld(runner, "slow", 40);
    await settle();
    await until(
      "the other controller lists the nodes",
      async () => {
        const res = await other.call("GET", "/v1/nodes");
        return res.body.data.items.length === 3;
      },
      10_000,
      50,
    );

    const created = await runner.call("POST", "/v1/probe/tcp", {
      body: { target: "127.0.0.1:9", node_ids: ["fast", "mid", "slow"] },
    });
    expect(created.status).toBe(202);
    const taskId = created.body.data.task_id as string;
    await Promise.all([mid.jobArrived, slow.jobArrived]);

    const { res, events } = await openStream(other, `/v1/probe/tasks/${taskId}`);
    expect(res.status).toBe(200);
    const start = await events.next();
    expect(data(start)).toMatchObject({ task_id: taskId, status: "running" });
    expect(data(start).nodes.map((n: { node_id: string }) => n.node_id)).toEqual(["fast", "mid", "slow"]);
    expect(data(start).nodes[0]).toEqual({
      node_id: "fast",
      node_name: "Node fast",
      country: "DE",
      region: "eu-central",
      provider: "test",
    });
    // The fast node answered before the stream opened: stored, so it comes first (or just after, as stored).
    const fast = await events.next();
    expect(data(fast).node_id).toBe("fast");

    mid.release();
    const second = await events.next();
    expect(second?.event).toBe("result");
    expect(data(second).node_id).toBe("mid");
    // Heard from the database while the task still runs on the other controller.
    expect(slow.state.answered).toBe(false);

    slow.release();
    const third = await events.next();
    expect(data(third).node_id).toBe("slow");
    const done = await events.next();
    expect(done?.event).toBe("done");
    expect(await events.next()).toBeUndefined();
    const fromRunner = await runner.call("GET", `/v1/probe/tasks/${taskId}`);
    const fromOther = await other.call("GET", `/v1/probe/tasks/${taskId}`);
    expect(data(done)).toEqual(fromRunner.body.data);
    expect(data(done)).toEqual(fromOther.body.data);
    expect(data(done).results).toEqual([data(fast), data(second), data(third)]);
  });

  it("a task failed without a NOTIFY (as the sweeper does) ends the stream through the polling fallback", async () => {
    const t = await db.freshApp("a");
    const id = newTaskId();
    await insertTask(
      t.db.kysely,
      {
        id,
        type: "tcp",
        target: "127.0.0.1:9",
        spec: {},
        nodeIds: ["gone"],
        ownerId: null,
        createdAt: new Date(),
        deadlineAt: new Date(),
        controllerId: "ctl_elsewhere",
      },
      "running",
    );
    const { events } = await openStream(t, `/v1/probe/tasks/${id}`);
    const start = await events.next();
    expect(data(start)).toMatchObject({
      task_id: id,
      status: "running",
      nodes: [{ node_id: "gone", node_name: "gone", country: null, region: null, provider: null }],
    });
    await t.db.kysely
      .updateTable("probe_tasks")
      .set({ status: "failed", finished_at: new Date() })
      .where("id", "=", id)
      .execute();
    const done = await events.next();
    expect(done?.event).toBe("done");
    expect(data(done)).toMatchObject({ task_id: id, status: "failed", results: [] });
    expect(await events.next()).toBeUndefined();
  });

  describe("TaskWatch", () => {
    const task = async () => {
      const id = newTaskId();
      await insertTask(
        db.testDb.db.kysely,
        {
          id,
          type: "tcp",
          target: "127.0.0.1:9",
          spec: {},
          nodeIds: ["n1"],
          ownerId: null,
          createdAt: new Date(),
        },
        "running",
      );
      return id;
    };
    const result = {
      node_id: "n1",
      node_name: "Node n1",
      position: 0,
      success: true,
      latency_ms: 1,
      error: null,
      detail: null,
      duration_ms: 1,
    };

    it("hears a stored result and the finish through NOTIFY (no polling in the test's time)", async () => {
      const { db: d } = db.testDb;
      const watch = new TaskWatch({
        db: d.kysely,
        listen: (c, m, l) => d.listen(c, m, l),
        log: silent,
        pollMs: 3_600_000,
      });
      const id = await task();
      const seen: TaskRecord[] = [];
      const stop = await watch.watch(id, (t) => seen.push(t));
      await insertResult(d.kysely, id, result);
      await until("the result heard", () => seen.some((t) => t.results.length === 1), 5000, 10);
      expect(await setTaskStatus(d.kysely, id, "done", new Date())).toBe(true);
      await until("the finish heard", () => seen.some((t) => t.status === "done"), 5000, 10);
      // A finished task does not move again.
      expect(await setTaskStatus(d.kysely, id, "failed", new Date())).toBe(false);
      stop();
      expect(watch.size).toBe(0);
      await watch.stop();
    });

    it("polls when nothing is heard: a change made without NOTIFY still reaches the watcher", async () => {
      const { db: d } = db.testDb;
      const deaf: Listen = async () => ({ async close() {} });
      const watch = new TaskWatch({ db: d.kysely, listen: deaf, log: silent, pollMs: 50 });
      const id = await task();
      const seen: TaskRecord[] = [];
      const stop = await watch.watch(id, (t) => seen.push(t));
      await d.kysely
        .insertInto("probe_results")
        .values({
          task_id: id,
          node_id: "n1",
          node_name: "Node n1",
          position: 0,
          success: true,
          latency_ms: 1,
          error_code: null,
          error_message: null,
          detail: null,
          duration_ms: 1,
        })
        .execute();
      await until("the result polled", () => seen.some((t) => t.results.length === 1), 5000, 10);
      await d.kysely.updateTable("probe_tasks").set({ status: "failed" }).where("id", "=", id).execute();
      await until("the status polled", () => seen.some((t) => t.status === "failed"), 5000, 10);
      stop();
      await watch.stop();
    });
  });
});
