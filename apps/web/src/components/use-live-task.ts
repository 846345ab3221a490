import { useEffect, useRef, useState } from "preact/hooks";
import { call, events, raw, type SseEvent } from "../api.js";
import type { ProbeType, ResultEntry, TaskNode, TaskView } from "./api-types.js";

/**
 * A probe task as the page shows it while it runs: the nodes it asked (a row each from the start), the
 * results that have arrived, and the task once done. Fed by the live stream (`start`, `result`…, `done`);
 * when the answer is plain JSON instead (Form B's finished task, Form A's 202 `queued`, a server without
 * the stream) it is read as such and, if unfinished, polled until done.
 */
export interface LiveTask {
  phase: "idle" | "starting" | "running" | "finished";
  taskId?: string | undefined;
  type?: ProbeType | undefined;
  target?: string | undefined;
  status?: TaskView["status"] | undefined;
  createdAt?: string | undefined;
  finishedAt?: string | null | undefined;
  nodes: TaskNode[];
  results: Record<string, ResultEntry>;
  error?: unknown;
}

const idle: LiveTask = { phase: "idle", nodes: [], results: {} };
const POLL_MS = 500;

export const isFinished = (s: string | undefined) => s === "done" || s === "failed";

/** Folds one stream event into the task. */
export function applyEvent(t: LiveTask, ev: SseEvent): LiveTask {
  if (ev.event === "start") {
    const d = ev.data as { task_id: string; type: ProbeType; status: TaskView["status"]; nodes?: TaskNode[] };
    return {
      ...t,
      phase: "running",
      taskId: d.task_id,
      type: d.type,
      status: d.status,
      nodes: d.nodes ?? [],
    };
  }
  if (ev.event === "result") {
    const r = ev.data as ResultEntry;
    const known = t.nodes.some((n) => n.node_id === r.node_id);
    return {
      ...t,
      nodes: known ? t.nodes : [...t.nodes, { node_id: r.node_id, node_name: r.node_name }],
      results: { ...t.results, [r.node_id]: r },
    };
  }
  if (ev.event === "done") return applyView(t, ev.data as TaskView);
  return t;
}

/** Takes a whole task view (JSON answer, poll, or `done`). */
export function applyView(t: LiveTask, v: TaskView): LiveTask {
  const results: Record<string, ResultEntry> = { ...t.results };
  const nodes = [...t.nodes];
  for (const r of v.results ?? []) {
    results[r.node_id] = r;
    if (!nodes.some((n) => n.node_id === r.node_id))
      nodes.push({ node_id: r.node_id, node_name: r.node_name });
  }
  return {
    ...t,
    phase: isFinished(v.status) ? "finished" : "running",
    taskId: v.task_id ?? t.taskId,
    type: v.type ?? t.type,
    target: v.target ?? t.target,
    status: v.status ?? t.status,
    createdAt: v.created_at ?? t.createdAt,
    finishedAt: v.finished_at ?? t.finishedAt,
    nodes,
    results,
  };
}

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => {
      clearTimeout(timer);
      resolve();
    });
  });

/** `start(type, body, target)` runs a probe and follows it; `open(id)` shows a stored task. */
export function useLiveTask() {
  const [task, setTask] = useState<LiveTask>(idle);
  const current = useRef<AbortController>();
  useEffect(() => () => current.current?.abort(), []);

  const begin = (initial: LiveTask) => {
    current.current?.abort();
    const ctl = new AbortController();
    current.current = ctl;
    let state = initial;
    const set = (next: LiveTask) => {
      state = next;
      if (!ctl.signal.aborted) setTask(next);
    };
    set(initial);
    return { signal: ctl.signal, get: () => state, set };
  };

  async function poll(run: ReturnType<typeof begin>, id: string) {
    while (!run.signal.aborted && !isFinished(run.get().status)) {
      await sleep(POLL_MS, run.signal);
      if (run.signal.aborted) return;
      const view = await call<TaskView>("GET", `/v1/probe/tasks/${encodeURIComponent(id)}`, {
        signal: run.signal,
      });
      run.set(applyView(run.get(), view));
    }
  }

  async function follow(run: ReturnType<typeof begin>, method: string, path: string, body?: unknown) {
    const res = await raw(method, path, {
      ...(body !== undefined ? { body } : {}),
      headers: { accept: "text/event-stream" },
      signal: run.signal,
    });
    if ((res.headers.get("content-type") ?? "").startsWith("text/event-stream")) {
      for await (const ev of events(res)) run.set(applyEvent(run.get(), ev));
    } else if (!res.ok) {
      await events(res).next(); // throws the API's error (and ends an expired session)
    } else {
      const data = ((await res.json()) as { data: Partial<TaskView> & { task_id: string } }).data;
      run.set(applyView({ ...run.get(), phase: "running" }, data as TaskView));
    }
    // A stream that ended early, or a task answered unfinished (Form A's 202): read it until it is done.
    const id = run.get().taskId;
    if (id && !isFinished(run.get().status)) await poll(run, id);
  }

  const guard = async (run: ReturnType<typeof begin>, work: () => Promise<void>) => {
    try {
      await work();
    } catch (error) {
      if (run.signal.aborted) return;
      run.set({ ...run.get(), phase: run.get().taskId ? "finished" : "idle", error });
    }
  };

  return {
    task,
    /** Runs a probe (`POST /v1/probe/<type>`) and follows it live. */
    start(type: ProbeType, body: unknown, target: string): Promise<void> {
      const run = begin({ ...idle, phase: "starting", type, target });
      return guard(run, () => follow(run, "POST", `/v1/probe/${type}`, body));
    },
    /**
     * A stored task, through the live stream: a finished task's stream is its results and `done` at once
     * (the same task as the JSON), a running one's follows it. Asking the JSON first would not do: Form B
     * stores a task only once it is finished, so a running task's JSON is a 404 while its stream works.
     */
    open(id: string): Promise<void> {
      const run = begin({ ...idle, phase: "starting", taskId: id });
      return guard(run, () => follow(run, "GET", `/v1/probe/tasks/${encodeURIComponent(id)}`));
    },
    reset() {
      begin(idle);
    },
  };
}
