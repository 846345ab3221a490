import type { NodeResult } from "../modules/probes/index.js";
import type { Form, TestApp, TestResponse } from "./test-app.js";

/** Form-specific request bodies for the same probe, and a reader that waits for the final task. */

export function tcpBody(form: Form, host: string, port: number, nodes?: string[], timeoutS?: number) {
  if (form === "a") {
    return {
      target: `${host}:${port}`,
      ...(nodes ? { node_ids: nodes } : {}),
      ...(timeoutS ? { params: { timeout_ms: timeoutS * 1000 } } : {}),
    };
  }
  return { host, port, ...(nodes ? { nodes } : {}), ...(timeoutS ? { timeout: timeoutS } : {}) };
}

export interface FinalTask {
  created: TestResponse;
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON bodies
  task: any;
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON bodies
  results: any[];
  ms: number;
}

/** POSTs the probe; Form B's answer is final, Form A's task is polled until done or failed. */
export async function runTask(
  t: TestApp,
  form: Form,
  type: string,
  body: unknown,
  pollTimeoutMs = 20_000,
): Promise<FinalTask> {
  const start = performance.now();
  const created = await t.call("POST", `/v1/probe/${type}`, { body });
  if (form === "b" || created.status !== 202) {
    return {
      created,
      task: created.body?.data,
      results: created.body?.data?.results ?? [],
      ms: performance.now() - start,
    };
  }
  const id = created.body.data.task_id as string;
  const deadline = Date.now() + pollTimeoutMs;
  for (;;) {
    const res = await t.call("GET", `/v1/probe/tasks/${id}`);
    const task = res.body.data;
    if (task.status === "done" || task.status === "failed") {
      return { created, task, results: task.results, ms: performance.now() - start };
    }
    if (Date.now() > deadline) throw new Error(`task ${id} still ${task.status} after ${pollTimeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** A successful TCP result of node `nodeId` at `position`, as a controller stores it. */
export function tcpResult(nodeId: string, position: number): NodeResult {
  return {
    node_id: nodeId,
    node_name: `Node ${nodeId}`,
    position,
    success: true,
    latency_ms: 1.25,
    error: null,
    detail: { port: 443, connect_ms: 1.25, resolved_ip: "192.0.2.7" },
    duration_ms: 1.5,
  };
}
