import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { Logger } from "pino";
import { type AppEnv, requestIdOf } from "../../../http/context.js";
import type { ApiForm } from "../../../http/security.js";
import { sseResponse } from "../../../http/sse.js";
import type { StreamSlots } from "../../../http/stream-slots.js";
import type { NodeResult } from "../dispatch.js";
import { isFinished, type TaskFollow } from "../follow-task.js";
import type { NodeProgress } from "../live-tasks.js";
import type { TaskRecord } from "../repo.js";
import { toApiResult, toTaskView } from "../result-schemas.js";

/** What the routes need to answer with a live stream. */
export interface LiveOptions {
  /** `VANTAGE_SSE_HEARTBEAT_MS`. */
  heartbeatMs: number;
  log: Logger;
  /** Streams open at once per client IP and per account (`VANTAGE_STREAMS_PER_IP`, `_PER_ACCOUNT`). */
  streams: StreamSlots;
}

/**
 * Answers with a live stream of the task `follow` opens, within the caller's stream caps: 429 before any
 * work (the task is not created) when its address or account already holds as many streams as allowed.
 * The slot is given back when the stream ends, the client goes away, or opening it fails.
 */
export async function openStream(
  c: Context<AppEnv>,
  form: ApiForm,
  opts: LiveOptions,
  open: () => Promise<TaskFollow>,
): Promise<Response> {
  const release = opts.streams.take(c);
  try {
    return streamTask(c, await open(), form, opts, release);
  } catch (err) {
    release();
    throw err;
  }
}

/**
 * Event data serialised once per result and per finished task, however many streams send it: the
 * followers of a task running here all get the same objects. (The form is the deployment's, one per
 * process, so a record has one view.)
 */
const resultJson = new WeakMap<NodeResult, string>();
const taskJson = new WeakMap<TaskRecord, string>();
const resultData = (r: NodeResult) => cached(resultJson, r, () => toApiResult(r));
const doneData = (t: TaskRecord, form: ApiForm) => cached(taskJson, t, () => toTaskView(t, form));
const progressJson = new WeakMap<NodeProgress, string>();
const progressData = (p: NodeProgress) =>
  cached(progressJson, p, () => ({ node_id: p.node_id, node_name: p.node_name, ...p.detail }));

function cached<K extends object>(cache: WeakMap<K, string>, key: K, view: () => unknown): string {
  let json = cache.get(key);
  if (json === undefined) {
    json = JSON.stringify(view());
    cache.set(key, json);
  }
  return json;
}

/**
 * Streams a followed task as Server-Sent Events: `start` (the task and its nodes), `progress` events of an
 * mtr node before its result (the latest one when the client reads slower than the rounds come), one
 * `result` per node (exactly its entry of the form's `results[]`: those it has first, then each as it
 * arrives), then `done`
 * (exactly what `GET /v1/probe/tasks/{id}` answers for the finished task), and the response ends. A client
 * that goes away stops the following only: the task runs on and is stored.
 */
function streamTask(
  c: Context<AppEnv>,
  follow: TaskFollow,
  form: ApiForm,
  opts: LiveOptions,
  release: () => void,
) {
  return sseResponse(
    c,
    {
      heartbeatMs: opts.heartbeatMs,
      onAbort: () => {
        follow.close();
        release();
      },
      onError: (err) =>
        opts.log.error({ err, request_id: requestIdOf(c) }, "live probe stream failed; ended"),
    },
    async (sse) => {
      try {
        const { task } = follow;
        let final = isFinished(task) ? task : undefined;
        await sse.send(
          "start",
          JSON.stringify({
            task_id: task.id,
            type: task.type,
            // A task still queued is shown as running: the stream follows it from now on.
            status: final ? toTaskView(final, form).status : "running",
            nodes: follow.nodes,
          }),
        );
        for (const r of task.results) await sse.send("result", resultData(r));
        while (!final) {
          const event = await follow.next();
          if (!event) return;
          if (event.kind === "progress") await sse.send("progress", progressData(event.progress));
          else if (event.kind === "result") await sse.send("result", resultData(event.result));
          else final = event.task;
        }
        await sse.send("done", doneData(final, form));
      } finally {
        follow.close();
        release();
      }
    },
  );
}

const example = [
  "event: start",
  'data: {"task_id":"task_mhb0v3k2x9a1b2c3d4e5f6a7","type":"tcp","status":"running","nodes":[{"node_id":"fra1","node_name":"Frankfurt 1","country":"DE","region":"eu-central","provider":"hetzner"},{"node_id":"sgp1","node_name":"Singapore 1","country":"SG","region":"ap-southeast","provider":"vultr"}]}',
  "id: 1",
  "",
  "event: result",
  'data: {"resolved_ip":"93.184.215.14","port":443,"connect_ms":1.9,"node_id":"fra1","node_name":"Frankfurt 1","success":true,"latency_ms":1.9}',
  "id: 2",
  "",
  ": keep-alive",
  "",
  "event: result",
  'data: {"resolved_ip":"93.184.215.14","port":443,"connect_ms":231.4,"node_id":"sgp1","node_name":"Singapore 1","success":true,"latency_ms":231.4}',
  "id: 3",
  "",
  "event: done",
  'data: {"task_id":"task_mhb0v3k2x9a1b2c3d4e5f6a7","type":"tcp","target":"example.com:443","status":"done","created_at":"2026-11-26T09:00:00.000Z","finished_at":"2026-11-26T09:00:00.240Z","results":[…]}',
  "id: 4",
  "",
  "",
].join("\n");

const eventsNote =
  "Events, each `data:` one line of JSON with an `id:` sequence number: `start` " +
  "`{task_id, type, status, nodes: [{node_id, node_name, country, region, provider}]}` (status `running` " +
  "while the task is unfinished, else its final status); for mtr, `progress` events before a node's " +
  "result, at most one per round: `{node_id, node_name, ...}` with the result's fields so far (`rounds` " +
  "done, `hops` with their running `sent`, loss and times), the latest only when the client reads slower " +
  "than rounds come, and only on the controller that runs the task (another one streams results alone); " +
  "one `result` per node, exactly its entry of " +
  "`results[]`, sent as the node's result arrives; `done`, exactly the `data` of `GET /v1/probe/tasks/{id}` " +
  "for the finished task, after which the response ends. `: keep-alive` comment lines come every " +
  "`VANTAGE_SSE_HEARTBEAT_MS` (15 s by default). Going away cancels nothing: the task runs on and is stored.";

/** The `text/event-stream` entry of a route's 200 response. */
export const eventStreamContent = {
  "text/event-stream": {
    schema: z.string().openapi({ description: eventsNote, example }),
  },
};

/** Appended to the route descriptions. */
export const streamNote = (what: string) =>
  ` **Live results:** with \`Accept: text/event-stream\` the answer is a stream of Server-Sent Events ${what}` +
  " (errors before it starts are JSON, as without it; see the 200 response). One client IP and one account " +
  "may each hold a limited number of streams open at once (`VANTAGE_STREAMS_PER_IP`, `_PER_ACCOUNT`, 20 by " +
  "default); one more is 429 `rate_limited` with `Retry-After`, before any work.";
