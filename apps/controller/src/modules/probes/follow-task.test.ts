import { describe, expect, it } from "vitest";
import type { NodeDirectory } from "../nodes/index.js";
import type { NodeResult } from "./dispatch.js";
import { followTask } from "./follow-task.js";
import { LiveTasks } from "./live-tasks.js";
import type { TaskRecord } from "./repo.js";
import type { TaskWatch } from "./task-watch.js";

/** Following a task running here: progress before a node's result, coalesced for a reader that lags. */
const task: TaskRecord = {
  id: "task_1",
  type: "mtr",
  target: "127.0.0.1",
  spec: {},
  owner_id: null,
  status: "running",
  node_ids: ["n1", "n2"],
  created_at: new Date(),
  finished_at: null,
  results: [],
};
const result = (node_id: string): NodeResult => ({
  node_id,
  node_name: node_id,
  position: 0,
  success: true,
  latency_ms: 1,
  error: null,
  detail: { rounds: 3 },
  duration_ms: 10,
});
const progress = (node_id: string, rounds: number) => ({ node_id, node_name: node_id, detail: { rounds } });

async function follow(live: LiveTasks) {
  const deps = {
    live,
    watch: {} as TaskWatch,
    directory: { list: async () => [] } as unknown as NodeDirectory,
    get: async () => task,
  };
  return followTask(deps, task.id, undefined);
}

describe("followTask", () => {
  it("keeps the latest unread progress per node, in its place, and none after the node's result", async () => {
    const live = new LiveTasks();
    live.begin(task);
    const f = await follow(live);
    live.progress(task.id, progress("n1", 1));
    live.progress(task.id, progress("n2", 1));
    live.progress(task.id, progress("n1", 2));
    live.result(task.id, result("n1"));
    live.progress(task.id, progress("n1", 3)); // after its result: dropped
    live.progress(task.id, progress("n2", 2));
    live.finish({ ...task, status: "done", results: [result("n1"), result("n2")] });
    const seen: string[] = [];
    for (let e = await f.next(); e; e = e.kind === "finished" ? undefined : await f.next()) {
      if (e.kind === "progress") seen.push(`progress ${e.progress.node_id} ${e.progress.detail.rounds}`);
      else if (e.kind === "result") seen.push(`result ${e.result.node_id}`);
      else seen.push("finished");
    }
    expect(seen).toEqual(["progress n1 2", "progress n2 2", "result n1", "result n2", "finished"]);
    f.close();
  });
});
