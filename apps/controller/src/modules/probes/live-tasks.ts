import type { NodeResult } from "./dispatch.js";
import type { TaskRecord } from "./repo.js";

/** A node's result so far (mtr: after a round), before its result: shown to live streams, never stored. */
export interface NodeProgress {
  node_id: string;
  node_name: string;
  /** The probe's detail so far, in its result's shape. */
  detail: Record<string, unknown>;
}

/**
 * What a follower of a task hears: one node's progress (only while the task runs on this controller), one
 * node's result, or the task finished (every result in it).
 */
export type LiveEvent =
  | { kind: "progress"; progress: NodeProgress }
  | { kind: "result"; result: NodeResult }
  | { kind: "finished"; task: TaskRecord };

export type LiveListener = (event: LiveEvent) => void;

interface Running {
  /** The task as it is now: its results in the order they arrived. */
  task: TaskRecord;
  listeners: Set<LiveListener>;
}

/**
 * The tasks this controller is running, in memory, from dispatch until they are finished: their results so
 * far and who follows them. Results reach followers here the moment the dispatch has them, before (Form A)
 * or without (Form B) a database write; followers on other controllers learn of them through the database
 * (see `TaskWatch`). Both forms register here; nothing here asks which form is active.
 */
export class LiveTasks {
  private readonly running = new Map<string, Running>();

  /** A task starts (its record without results). */
  begin(task: TaskRecord): void {
    this.running.set(task.id, { task: { ...task, results: [] }, listeners: new Set() });
  }

  status(id: string, status: TaskRecord["status"]): void {
    const r = this.running.get(id);
    if (r) r.task = { ...r.task, status };
  }

  result(id: string, result: NodeResult): void {
    const r = this.running.get(id);
    if (!r) return;
    r.task = { ...r.task, results: [...r.task.results, result] };
    for (const l of [...r.listeners]) l({ kind: "result", result });
  }

  /** A node's progress reaches the task's followers here (kept nowhere: a follower who comes later waits). */
  progress(id: string, progress: NodeProgress): void {
    const r = this.running.get(id);
    if (!r || r.listeners.size === 0) return;
    const event: LiveEvent = { kind: "progress", progress };
    for (const l of [...r.listeners]) l(event);
  }

  /** The task is finished (and handed to whatever stores it): its followers hear it, then it is forgotten. */
  finish(task: TaskRecord): void {
    const r = this.running.get(task.id);
    if (!r) return;
    this.running.delete(task.id);
    for (const l of [...r.listeners]) l({ kind: "finished", task });
  }

  /** True while someone follows the task here. */
  followed(id: string): boolean {
    return (this.running.get(id)?.listeners.size ?? 0) > 0;
  }

  get size(): number {
    return this.running.size;
  }

  /**
   * Follows a task running here: its record as it is now, and `listener` for what comes after (nothing is
   * missed in between: both happen in one turn). Undefined when the task does not run here (any more).
   */
  follow(id: string, listener: LiveListener): { task: TaskRecord; stop(): void } | undefined {
    const r = this.running.get(id);
    if (!r) return undefined;
    r.listeners.add(listener);
    return { task: r.task, stop: () => r.listeners.delete(listener) };
  }
}
