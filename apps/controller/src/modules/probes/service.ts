import type { ProbeJobSpec } from "@vantage/probes";
import type { ControllerTransport } from "@vantage/transport";
import type { Kysely } from "kysely";
import type { Logger } from "pino";
import type { Database } from "../../db/schema.js";
import { ApiError } from "../../http/errors.js";
import type { NodeDirectory } from "../nodes/index.js";
import type { BackgroundWork } from "./background.js";
import { dispatchTimeoutMs } from "./deadlines.js";
import { dispatchToNode, type NodeResult, nodeErrorCodes } from "./dispatch.js";
import {
  findTask,
  insertFinishedTask,
  insertResult,
  insertTask,
  type NewTask,
  newTaskId,
  setTaskStatus,
  type TaskRecord,
} from "./repo.js";
import { type SelectedNode, selectNodes } from "./select-nodes.js";
import { assertTargetAllowed } from "./target-check.js";

export interface ProbeDeps {
  db: Kysely<Database>;
  transport: ControllerTransport;
  directory: NodeDirectory;
  background: BackgroundWork;
  log: Logger;
  defaultNodes: number;
  offlineAfterMs: number;
  allowPrivateTargets: boolean;
}

/** A probe request in the internal model; the routes build it from either form. */
export interface ProbeRequest {
  spec: ProbeJobSpec;
  /** The URL, host or domain as the caller wrote it. */
  target: string;
  nodeIds?: readonly string[] | undefined;
  /** Body paths for error details, in the caller's form. */
  paths: { target: string; server: string; nodes: string };
  ownerId?: string | null;
}

const nodeLevel = new Set<string>(nodeErrorCodes);

/** `failed` when no node could run the probe at all; a probe that ran and failed still makes the task `done`. */
export function finalStatus(results: readonly NodeResult[]): "done" | "failed" {
  return results.every((r) => r.error && nodeLevel.has(r.error.code)) ? "failed" : "done";
}

async function prepare(
  deps: ProbeDeps,
  req: ProbeRequest,
): Promise<{ task: NewTask; nodes: SelectedNode[] }> {
  assertTargetAllowed(req.spec, deps.allowPrivateTargets, req.paths);
  const nodes = await selectNodes(deps.directory, {
    type: req.spec.type,
    requested: req.nodeIds ? { ids: req.nodeIds, field: req.paths.nodes } : undefined,
    count: deps.defaultNodes,
    offlineAfterMs: deps.offlineAfterMs,
  });
  const task: NewTask = {
    id: newTaskId(),
    type: req.spec.type,
    target: req.target,
    spec: req.spec,
    nodeIds: nodes.map((n) => n.id),
    ownerId: req.ownerId ?? null,
    createdAt: new Date(),
  };
  return { task, nodes };
}

function dispatchAll(
  deps: ProbeDeps,
  task: NewTask,
  spec: ProbeJobSpec,
  nodes: SelectedNode[],
  onResult?: (r: NodeResult) => Promise<void>,
): Promise<NodeResult[]> {
  const timeoutMs = dispatchTimeoutMs(spec);
  return Promise.all(
    nodes.map(async (node, position) => {
      const r = await dispatchToNode({
        transport: deps.transport,
        directory: deps.directory,
        node,
        position,
        spec,
        jobId: `${task.id}.${position}`,
        timeoutMs,
      });
      if (onResult) await onResult(r);
      return r;
    }),
  );
}

/** Runs the probe on every chosen node, stores the task and answers when the last node has (Form B). */
export async function runProbeTask(deps: ProbeDeps, req: ProbeRequest): Promise<TaskRecord> {
  const { task, nodes } = await prepare(deps, req);
  const results = await dispatchAll(deps, task, req.spec, nodes);
  const status = finalStatus(results);
  const finishedAt = new Date();
  await insertFinishedTask(deps.db, task, status, results, finishedAt);
  return {
    ...task,
    node_ids: task.nodeIds,
    status,
    created_at: task.createdAt,
    finished_at: finishedAt,
    results,
  };
}

/**
 * Stores the task as `queued` and returns at once (Form A); the dispatch runs in the background, storing
 * each node's result as it arrives (`running`), then `done` or `failed`.
 */
export async function queueProbeTask(deps: ProbeDeps, req: ProbeRequest): Promise<{ id: string }> {
  const { task, nodes } = await prepare(deps, req);
  await insertTask(deps.db, task, "queued");
  deps.background.run(async () => {
    try {
      await setTaskStatus(deps.db, task.id, "running", false);
      const results = await dispatchAll(deps, task, req.spec, nodes, (r) =>
        insertResult(deps.db, task.id, r),
      );
      await setTaskStatus(deps.db, task.id, finalStatus(results), true);
    } catch (err) {
      deps.log.error({ err, task_id: task.id }, "probe task failed to complete");
      await setTaskStatus(deps.db, task.id, "failed", true).catch(() => {});
    }
  });
  return { id: task.id };
}

export async function getProbeTask(deps: ProbeDeps, id: string): Promise<TaskRecord> {
  const task = /^task_[a-z0-9]{1,40}$/.test(id) ? await findTask(deps.db, id) : undefined;
  if (!task) throw new ApiError("not_found", `probe task ${id} not found`);
  return task;
}
