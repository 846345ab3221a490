import { type Api, call, readEnvelope, send } from "./api-client.js";
import { CliError } from "./errors.js";
import type { ProbeType } from "./probe-request.js";
import type { StartNode, Task } from "./probe-view.js";
import type { ResultEntry } from "./result-columns.js";
import { readEvents } from "./sse.js";

/** What a run reports as it goes: the live table, or nothing (`--json`). */
export interface ProbeListener {
  start(nodes: StartNode[]): void;
  result(entry: ResultEntry): void;
}

const POLL_MS = 400;
const POLL_LIMIT_MS = 180_000;

const getTask = (api: Api, id: string) => call<Task>(api, `/v1/probe/tasks/${encodeURIComponent(id)}`);

/**
 * Runs one probe and answers the finished task (the `data` of `GET /v1/probe/tasks/{id}`). Asks for
 * live results (SSE); a server that answers JSON instead is followed by polling the task (Form A's 202)
 * or read at once (Form B's finished answer).
 */
export async function runProbe(
  api: Api,
  type: ProbeType,
  body: Record<string, unknown>,
  listener: ProbeListener,
): Promise<Task> {
  const res = await send(api.url, `/v1/probe/${type}`, {
    method: "POST",
    body,
    accept: "text/event-stream",
    key: api.key,
  });
  if (res.ok && res.body && res.headers.get("content-type")?.startsWith("text/event-stream")) {
    let taskId: string | undefined;
    for await (const ev of readEvents(res.body)) {
      const data = JSON.parse(ev.data) as Record<string, unknown>;
      if (ev.event === "start") {
        taskId = data.task_id as string;
        listener.start((data.nodes as StartNode[] | undefined) ?? []);
      } else if (ev.event === "result") listener.result(data as unknown as ResultEntry);
      else if (ev.event === "done") return data as unknown as Task;
    }
    // The stream ended without `done` (the controller restarted): the task runs on; follow it by polling.
    if (!taskId) throw new CliError("the live stream ended before the task started");
    return poll(api, taskId, listener);
  }
  const answer = await readEnvelope<{ task_id: string; status?: string; results?: ResultEntry[] }>(res);
  if (answer.results && answer.status === "done") {
    listener.start([]);
    for (const r of answer.results) listener.result(r);
    return getTask(api, answer.task_id).catch(() => ({
      ...answer,
      status: "done",
      results: answer.results ?? [],
    }));
  }
  listener.start([]);
  return poll(api, answer.task_id, listener);
}

async function poll(api: Api, taskId: string, listener: ProbeListener): Promise<Task> {
  const end = Date.now() + POLL_LIMIT_MS;
  for (;;) {
    const task = await getTask(api, taskId);
    for (const r of task.results) listener.result(r);
    if (task.status === "done" || task.status === "failed") return task;
    if (Date.now() > end)
      throw new CliError(`task ${taskId} did not finish within ${POLL_LIMIT_MS / 1000} s`);
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}
