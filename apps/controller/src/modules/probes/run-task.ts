import type { ProbeJobSpec } from "@vantage/probes";
import { fieldError, unavailableError } from "../../http/errors.js";
import type { RateLimitStatus } from "../../http/rate-limit/index.js";
import { dispatchTimeoutMs } from "./deadlines.js";
import {
  confirmSignatures,
  type DispatchInput,
  dispatchToNode,
  type NodeResult,
  nodeErrorCodes,
  signatureHoldsAsync,
} from "./dispatch.js";
import type { Created, ProbeDeps } from "./probe-deps.js";
import {
  findTask,
  insertResult,
  insertTask,
  type NewTask,
  newTaskId,
  setTaskStatus,
  type TaskRecord,
} from "./repo.js";
import type { ProbeRequest } from "./request.js";
import { selectLocations } from "./select-locations.js";
import { type SelectedNode, selectNodes } from "./select-nodes.js";
import { storable } from "./storable.js";
import { assertTargetAllowed, literalTargetFamily } from "./target-check.js";

/**
 * Running a probe task on its nodes, in both models: Form B's (`runProbeTask`, `startProbeTask`: the
 * answer is the finished task, written behind it) and Form A's (`queueProbeTask`: stored as it goes). Each
 * result reaches the task's followers here (`LiveTasks`) as it arrives.
 */

const nodeLevel = new Set<string>(nodeErrorCodes);

/** `failed` when no node could run the probe at all; a probe that ran and failed still makes the task `done`. */
export function finalStatus(results: readonly NodeResult[]): "done" | "failed" {
  return results.every((r) => r.error && nodeLevel.has(r.error.code)) ? "failed" : "done";
}

async function prepare(
  deps: ProbeDeps,
  req: ProbeRequest,
): Promise<{ task: NewTask; nodes: SelectedNode[]; quota: RateLimitStatus | undefined }> {
  assertTargetAllowed(req.spec, deps.allowPrivateTargets, req.paths);
  if (!deps.transport.connected()) {
    // Every job would wait out its deadline in a buffer: say so now, before any quota is spent.
    throw unavailableError(
      "the controller has lost its link to the probe nodes (NATS) and is reconnecting; try again shortly",
    );
  }
  const nodes = await chooseNodes(deps, req);
  const task: NewTask = {
    id: newTaskId(),
    type: req.spec.type,
    target: req.target,
    spec: req.spec,
    nodeIds: nodes.map((n) => n.id),
    ownerId: req.caller.kind === "account" ? req.caller.userId : null,
    createdAt: new Date(),
  };
  // Paid per node that gets the job; offline named nodes cost nothing.
  const cost = nodes.filter((n) => n.online).length;
  const quota = await deps.quota.take(req.caller, cost);
  deps.quota.record(req.caller, cost);
  return { task, nodes, quota };
}

/** The request's nodes: named, those of an earlier task (`reuse`), by place (`locations`), or automatic. */
async function chooseNodes(deps: ProbeDeps, req: ProbeRequest): Promise<SelectedNode[]> {
  const family = literalTargetFamily(req.spec);
  const common = { type: req.spec.type, family, offlineAfterMs: deps.offlineAfterMs };
  if (req.locations) return selectLocations(deps.directory, { ...common, locations: req.locations });
  let requested = req.nodeIds ? { ids: req.nodeIds, field: req.paths.nodes } : undefined;
  if (req.reuse) {
    // As the caller may read it (its own, or an anonymous one): anything else is as good as unknown.
    const earlier = deps.writer.peek(req.reuse) ?? (await findTask(deps.db, req.reuse));
    const viewer = req.caller.kind === "account" ? req.caller.userId : undefined;
    if (!earlier || (earlier.owner_id !== null && earlier.owner_id !== viewer))
      throw fieldError("body.reuse", `no probe task ${req.reuse} of yours`);
    requested = { ids: earlier.node_ids, field: "reuse" };
  }
  return selectNodes(deps.directory, { ...common, requested, count: deps.defaultNodes });
}

function dispatchAll(
  deps: ProbeDeps,
  task: NewTask,
  spec: ProbeJobSpec,
  nodes: SelectedNode[],
  onResult?: (r: NodeResult) => Promise<void>,
  signatures?: DispatchInput["signatures"],
): Promise<NodeResult[]> {
  const timeoutMs = dispatchTimeoutMs(spec);
  return Promise.all(
    nodes.map(async (node, position) => {
      const r = storable(
        await dispatchToNode({
          transport: deps.transport,
          directory: deps.directory,
          node,
          position,
          spec,
          jobId: `${task.id}.${position}`,
          timeoutMs,
          quarantine: deps.quarantine,
          hopNetworks: deps.hopNetworks,
          // mtr streams its rounds to the task's live followers (progress is never stored).
          onProgress:
            spec.type === "mtr"
              ? (detail) => deps.live.progress(task.id, { node_id: node.id, node_name: node.name, detail })
              : undefined,
          onBadSignature: badSignature(deps, task.id),
          signatures,
        }),
      );
      if (onResult) await onResult(r);
      return r;
    }),
  );
}

const badSignature = (deps: ProbeDeps, taskId: string) => (nodeId: string, why: string) =>
  deps.log.warn({ task_id: taskId, node_id: nodeId, why }, "result kept unsigned");

function recordOf(
  task: NewTask,
  status: TaskRecord["status"],
  results: NodeResult[],
  finishedAt: Date | null = status === "done" || status === "failed" ? new Date() : null,
): TaskRecord {
  return {
    id: task.id,
    type: task.type,
    target: task.target,
    spec: task.spec,
    owner_id: task.ownerId,
    node_ids: task.nodeIds,
    status,
    created_at: task.createdAt,
    finished_at: finishedAt,
    results,
  };
}

/** A task as stored: its results in node order. */
const byPosition = (results: readonly NodeResult[]) => [...results].sort((a, b) => a.position - b.position);

/** A started Form B task: its id at once, the finished task (handed to the result writer) later. */
export interface Started {
  id: string;
  finished: Promise<TaskRecord>;
}

/**
 * Form B's run, from the moment its nodes have the job: resolves with the task's id once nodes are chosen
 * and the quota is taken; `finished` resolves when the last node has answered (dispatch makes every
 * failure an entry, so it does not reject for a node). The run is background work (awaited on shutdown),
 * so it ends and is stored whether or not anyone still waits for it (a live stream whose client left).
 * Each result reaches the task's followers as it arrives.
 */
export async function startProbeTask(deps: ProbeDeps, req: ProbeRequest): Promise<Created<Started>> {
  if (deps.writer.full) {
    throw unavailableError(
      "probe results cannot be stored right now (the database is behind); try again shortly",
    );
  }
  const { task, nodes, quota } = await prepare(deps, req);
  deps.live.begin(recordOf(task, "running", []));
  const wal = deps.wal;
  // With the log, each node's signature is checked in the thread pool from the moment its result arrives,
  // and the checks are awaited beside the append: neither the loop nor the answer waits on them in turn.
  const checks = new Map<number, Promise<boolean>>();
  const onResult = async (r: NodeResult) => {
    if (wal && r.signature) checks.set(r.position, signatureHoldsAsync(r.signature));
    deps.live.result(task.id, r);
  };
  const finished = dispatchAll(deps, task, req.spec, nodes, onResult, wal && "claim").then(
    async (results) => {
      let record = recordOf(task, finalStatus(results), results);
      if (wal) {
        // Durable before it is answered (ADR 0012): a SIGKILL from here on loses nothing another controller
        // cannot store. The log holds the signatures as claimed (its drain checks them); what is stored
        // and answered from here on holds only those that verify.
        const appended = wal.append(record);
        const verdicts = new Map<number, boolean>();
        for (const [position, check] of checks) verdicts.set(position, await check);
        record = {
          ...record,
          results: confirmSignatures(record.results, badSignature(deps, task.id), verdicts),
        };
        await appended;
      }
      // Without JetStream, write-behind alone (ADR 0005).
      deps.writer.write(record);
      deps.live.finish(record);
      return record;
    },
  );
  deps.background.run(() =>
    finished.then(
      () => {},
      (err: unknown) => deps.log.error({ err, task_id: task.id }, "probe task failed to complete"),
    ),
  );
  return { value: { id: task.id, finished }, quota };
}

/**
 * Runs the probe on every chosen node and answers when the last node has (Form B). The task and its results
 * are written behind the answer by the result writer (ADR 0003), which serves them from memory until
 * they land.
 */
export async function runProbeTask(deps: ProbeDeps, req: ProbeRequest): Promise<Created<TaskRecord>> {
  const started = await startProbeTask(deps, req);
  return { value: await started.value.finished, quota: started.quota };
}

/**
 * Stores the task as `queued` and returns at once (Form A); the dispatch runs in the background, storing
 * each node's result as it arrives (`running`), then `done` or `failed`. Every write after the answer is
 * retried while the database is away, for as long as it is (until shutdown): a task whose results reached
 * the controller ends with them. The task carries its deadline and this controller's id, so if the
 * controller dies mid-task the sweeper fails it once the controller's lease runs out.
 */
export async function queueProbeTask(deps: ProbeDeps, req: ProbeRequest): Promise<Created<string>> {
  const prepared = await prepare(deps, req);
  const { nodes, quota } = prepared;
  const task: NewTask = {
    ...prepared.task,
    deadlineAt: new Date(prepared.task.createdAt.getTime() + dispatchTimeoutMs(req.spec)),
    controllerId: deps.controllerId,
    callbackUrl: req.callbackUrl,
  };
  await insertTask(deps.db, task, "queued");
  deps.live.begin(recordOf(task, "queued", []));
  const context = { task_id: task.id };
  const write = (what: string, op: () => Promise<unknown>) =>
    deps.retry.run(what, context, async () => {
      await op();
    });
  // The finished task as its followers here get it: as stored (the same values, results in node order);
  // read back only when the task did not move (the sweeper failed it first).
  const finish = async (status: "done" | "failed", results: NodeResult[], at: Date, moved: boolean) => {
    const record = recordOf(task, status, byPosition(results), at);
    // The completion webhook goes out after the task is stored, whatever the followers here see.
    const callback = req.callbackUrl;
    if (callback && deps.hooks) deps.background.run(() => deps.hooks!.deliver(record, callback));
    const stored =
      moved || !deps.live.followed(task.id)
        ? undefined
        : await findTask(deps.db, task.id).catch(() => undefined);
    deps.live.finish(stored ?? record);
  };
  /** The task's final status, written until it lands (retried while the database is away): whether it moved. */
  const settle = async (status: "done" | "failed", at: Date): Promise<boolean> => {
    let moved = false;
    await write("probe task status", async () => {
      moved = await setTaskStatus(deps.db, task.id, status, at);
    });
    return moved;
  };
  deps.background.run(async () => {
    const arrived: NodeResult[] = [];
    try {
      await write("probe task status", async () => {
        await setTaskStatus(deps.db, task.id, "running");
        deps.live.status(task.id, "running");
      });
      const results = await dispatchAll(deps, task, req.spec, nodes, async (r) => {
        arrived.push(r);
        // Followers here have it now; the write (and the NOTIFY for other controllers) follows.
        deps.live.result(task.id, r);
        await write("probe result", () => insertResult(deps.db, task.id, r));
      });
      const status = finalStatus(results);
      const at = new Date();
      await finish(status, results, at, await settle(status, at));
    } catch (err) {
      deps.log.error({ err, task_id: task.id }, "probe task failed to complete");
      const at = new Date();
      // Retried as the status above: tried once, a task whose write failed during an outage stayed
      // `running` until the sweep ended it (ABANDONED_AFTER_MS).
      const moved = await settle("failed", at).catch((e: unknown) => {
        deps.log.error(
          { err: e, task_id: task.id },
          "probe task: its failed status not stored; the sweep ends it",
        );
        return false;
      });
      await finish("failed", arrived, at, moved);
    }
  });
  return { value: task.id, quota };
}
