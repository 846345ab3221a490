import { notFound } from "../../http/errors.js";
import type { NodeDirectory } from "../nodes/index.js";
import type { LiveEvent, LiveTasks } from "./live-tasks.js";
import type { TaskRecord } from "./repo.js";
import type { TaskWatch } from "./task-watch.js";

/** A node a task runs on, as a live stream's `start` event names it (null: the node is no longer known). */
export interface StreamNode {
  node_id: string;
  node_name: string;
  country: string | null;
  region: string | null;
  provider: string | null;
}

/** A task being followed: where it stands, then what happens to it, each result once. */
export interface TaskFollow {
  /** The nodes the task runs on, in the task's order. */
  readonly nodes: StreamNode[];
  /** The task when following began: its results so far (finished: all of them). */
  readonly task: TaskRecord;
  /**
   * The next event: a node's progress (before its result; only the latest when several came meanwhile), a
   * result not in `task` nor sent before, or `finished` (after the results it holds that were not sent
   * yet); then nothing more. Resolves undefined once `close` is called.
   */
  next(): Promise<LiveEvent | undefined>;
  /** Stops following (the client went away): the task itself runs on. */
  close(): void;
}

export interface FollowDeps {
  live: LiveTasks;
  watch: TaskWatch;
  directory: NodeDirectory;
  /** The task as `viewer` may read it (`getProbeTask`: memory or the database; 404 otherwise). */
  get(id: string, viewer: string | undefined): Promise<TaskRecord>;
}

export const isFinished = (t: TaskRecord) => t.status === "done" || t.status === "failed";

/**
 * Follows a task as `viewer` may see it (`getProbeTask`'s rules: 404 for an unknown id or another account's
 * task). A task running on this controller is followed in memory (`LiveTasks`): each result the moment its
 * node's reply arrives. Any other task is read from the database; an unfinished one (a Form A task that
 * another controller runs) is then watched there (`TaskWatch`: NOTIFY, with polling as the fallback), so
 * each result comes once that controller has stored it. A Form B task running on another controller is not
 * stored yet: 404, as for `GET /v1/probe/tasks/{id}`.
 */
export async function followTask(
  deps: FollowDeps,
  id: string,
  viewer: string | undefined,
): Promise<TaskFollow> {
  const events = new EventQueue();
  const sent = new Set<string>();
  let finished = false;
  const take = (e: LiveEvent) => {
    if (finished) return;
    if (e.kind === "progress") {
      // Only before the node's result; a newer one replaces one not sent yet (a slow reader gets the latest).
      if (!sent.has(e.progress.node_id)) events.push(e);
      return;
    }
    if (e.kind === "result") {
      if (sent.has(e.result.node_id)) return;
      sent.add(e.result.node_id);
      events.push(e);
      return;
    }
    for (const result of e.task.results) take({ kind: "result", result });
    finished = true;
    events.push(e);
  };
  const takeRecord = (t: TaskRecord) => {
    if (isFinished(t)) take({ kind: "finished", task: t });
    else for (const result of t.results) take({ kind: "result", result });
  };

  let stop: () => void = () => {};
  // What the watch hears before the task is read is taken after it, so nothing is sent twice.
  let early: TaskRecord[] | undefined;
  let task: TaskRecord;
  const local = deps.live.follow(id, take);
  if (local) {
    stop = local.stop;
    if (local.task.owner_id !== null && local.task.owner_id !== viewer) {
      stop();
      throw notFound(`probe task ${id}`);
    }
    task = local.task;
  } else {
    // Watched first, then read: a change in between is in the read or heard by the watch. (A finished task
    // ends its watch at once; the watch costs a map entry, the LISTEN is the process's, opened once.)
    early = [];
    stop = await deps.watch.watch(id, (t) => (early ? early.push(t) : takeRecord(t)));
    try {
      task = await deps.get(id, viewer);
    } catch (err) {
      stop();
      throw err;
    }
  }
  for (const r of task.results) sent.add(r.node_id);
  if (isFinished(task)) {
    finished = true;
    stop();
  }
  const heard = early ?? [];
  early = undefined;
  for (const t of heard) takeRecord(t);
  let nodes: StreamNode[];
  try {
    nodes = await nodesOf(deps, task);
  } catch (err) {
    stop();
    throw err;
  }
  return {
    nodes,
    task,
    next: () => events.next(),
    close() {
      stop();
      events.close();
    },
  };
}

/** The task's nodes with their place in the world, from the node directory. */
async function nodesOf(deps: FollowDeps, task: TaskRecord): Promise<StreamNode[]> {
  const known = new Map((await deps.directory.list()).map((n) => [n.id, n]));
  const named = new Map(task.results.map((r) => [r.node_id, r.node_name]));
  return task.node_ids.map((id) => {
    const n = known.get(id);
    return {
      node_id: id,
      node_name: n?.name ?? named.get(id) ?? id,
      country: n?.country ?? null,
      region: n?.region ?? null,
      provider: n?.provider ?? null,
    };
  });
}

/**
 * Events in order, for one reader. Progress coalesces: one not taken yet is replaced, in its place, by the
 * same node's next one, so a slow reader holds at most one progress per node.
 */
class EventQueue {
  private readonly items: LiveEvent[] = [];
  private waiting: ((e: LiveEvent | undefined) => void) | undefined;
  private closed = false;

  push(e: LiveEvent): void {
    if (this.closed) return;
    const w = this.waiting;
    if (w) {
      this.waiting = undefined;
      w(e);
      return;
    }
    if (e.kind === "progress") {
      const node = e.progress.node_id;
      const i = this.items.findIndex((q) => q.kind === "progress" && q.progress.node_id === node);
      if (i !== -1) {
        this.items[i] = e;
        return;
      }
    }
    this.items.push(e);
  }

  next(): Promise<LiveEvent | undefined> {
    const e = this.items.shift();
    if (e || this.closed) return Promise.resolve(e);
    return new Promise((resolve) => {
      this.waiting = resolve;
    });
  }

  close(): void {
    this.closed = true;
    this.items.length = 0;
    const w = this.waiting;
    this.waiting = undefined;
    w?.(undefined);
  }
}
