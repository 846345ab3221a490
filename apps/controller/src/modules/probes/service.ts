import type { ProbeJobSpec, ProbeType } from "@vantage/probes";
import type { ControllerTransport } from "@vantage/transport";
import type { Kysely } from "kysely";
import type { Logger } from "pino";
import type { Database } from "../../db/schema.js";
import { ApiError, unavailableError } from "../../http/errors.js";
import type { RateLimitStatus } from "../../http/rate-limit/index.js";
import { validationError } from "../../http/router.js";
import type { NodeDirectory } from "../nodes/index.js";
import type { BackgroundWork } from "./background.js";
import { dispatchTimeoutMs } from "./deadlines.js";
import { dispatchToNode, type NodeResult, nodeErrorCodes } from "./dispatch.js";
import { formABodies, fromFormA } from "./form-a.js";
import type { ProbeCaller, ProbeLimits } from "./quota.js";
import {
  findTask,
  insertResult,
  insertTask,
  type NewTask,
  newTaskId,
  setTaskStatus,
  type TaskRecord,
  taskIdTime,
} from "./repo.js";
import type { ProbeInput, ProbeRequest } from "./request.js";
import { type ResultWriter, UNWRITTEN_GRACE_MS } from "./result-writer.js";
import { type SelectedNode, selectNodes } from "./select-nodes.js";
import { storable } from "./storable.js";
import { ABANDONED_AFTER_MS } from "./sweeper.js";
import { assertTargetAllowed, literalTargetFamily } from "./target-check.js";
import type { WriteRetry } from "./write-retry.js";

export type { ProbeInput, ProbeRequest } from "./request.js";

export interface ProbeDeps {
  db: Kysely<Database>;
  transport: ControllerTransport;
  directory: NodeDirectory;
  background: BackgroundWork;
  /** Form B's results go in behind the answer (ADR 0003). */
  writer: ResultWriter;
  /** Form A's writes, retried while the database is away (shared with the writer: shutdown ends both). */
  retry: WriteRetry;
  /** This controller process (its lease in `controller_leases`); Form A tasks carry it. */
  controllerId: string;
  quota: ProbeLimits;
  log: Logger;
  defaultNodes: number;
  offlineAfterMs: number;
  allowPrivateTargets: boolean;
}

/** A created task and what it left of the caller's quota (undefined: unlimited). */
export interface Created<T> {
  value: T;
  quota: RateLimitStatus | undefined;
}

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
  const nodes = await selectNodes(deps.directory, {
    type: req.spec.type,
    requested: req.nodeIds ? { ids: req.nodeIds, field: req.paths.nodes } : undefined,
    count: deps.defaultNodes,
    family: literalTargetFamily(req.spec),
    offlineAfterMs: deps.offlineAfterMs,
  });
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
      const r = storable(
        await dispatchToNode({
          transport: deps.transport,
          directory: deps.directory,
          node,
          position,
          spec,
          jobId: `${task.id}.${position}`,
          timeoutMs,
        }),
      );
      if (onResult) await onResult(r);
      return r;
    }),
  );
}

/**
 * Runs the probe on every chosen node and answers when the last node has (Form B). The task and its results
 * are written behind the answer by the result writer (ADR 0003), which serves them from memory until
 * they land.
 */
export async function runProbeTask(deps: ProbeDeps, req: ProbeRequest): Promise<Created<TaskRecord>> {
  if (deps.writer.full) {
    throw unavailableError(
      "probe results cannot be stored right now (the database is behind); try again shortly",
    );
  }
  const { task, nodes, quota } = await prepare(deps, req);
  const results = await dispatchAll(deps, task, req.spec, nodes);
  const record: TaskRecord = {
    id: task.id,
    type: task.type,
    target: task.target,
    spec: task.spec,
    owner_id: task.ownerId,
    node_ids: task.nodeIds,
    status: finalStatus(results),
    created_at: task.createdAt,
    finished_at: new Date(),
    results,
  };
  deps.writer.write(record);
  return { value: record, quota };
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
  };
  await insertTask(deps.db, task, "queued");
  const context = { task_id: task.id };
  const write = (what: string, op: () => Promise<void>) => deps.retry.run(what, context, op);
  deps.background.run(async () => {
    try {
      await write("probe task status", () => setTaskStatus(deps.db, task.id, "running", false));
      const results = await dispatchAll(deps, task, req.spec, nodes, async (r) => {
        await write("probe result", () => insertResult(deps.db, task.id, r));
      });
      await write("probe task status", () => setTaskStatus(deps.db, task.id, finalStatus(results), true));
    } catch (err) {
      deps.log.error({ err, task_id: task.id }, "probe task failed to complete");
      await setTaskStatus(deps.db, task.id, "failed", true).catch(() => {});
    }
  });
  return { value: task.id, quota };
}

/**
 * A task from memory (answered here, not written yet) or the database. A Form B task answered by another
 * controller a moment ago may still be in that controller's write buffer, so a miss on a recent id (its
 * time part within the abandonment window) is looked for again for a short while before the 404.
 *
 * A task created with credentials belongs to that account: only the same account reads it (`viewer`),
 * anyone else gets the same 404 as for an unknown id. An anonymous task is readable by whoever holds its
 * id (64 random bits), as the caller that created it has nothing else to prove.
 */
export async function getProbeTask(
  deps: ProbeDeps,
  id: string,
  viewer: string | undefined,
): Promise<TaskRecord> {
  const notFound = () => new ApiError("not_found", `probe task ${id} not found`);
  if (!/^task_[a-z0-9]{1,40}$/.test(id)) throw notFound();
  const now = Date.now();
  const createdAt = taskIdTime(id);
  const recent = createdAt !== undefined && createdAt > now - ABANDONED_AFTER_MS && createdAt < now + 60_000;
  const waitUntil = recent ? now + UNWRITTEN_GRACE_MS : now;
  for (;;) {
    const task = deps.writer.peek(id) ?? (await findTask(deps.db, id));
    if (task) {
      if (task.owner_id !== null && task.owner_id !== viewer) throw notFound();
      return task;
    }
    if (Date.now() >= waitUntil) throw notFound();
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** The probe verbs other modules (scheduler, MCP, dashboard) and the routes call. */
export interface ProbesService {
  /** Runs a probe on its nodes and resolves with the finished task (Form B's model). */
  run(req: ProbeRequest): Promise<Created<TaskRecord>>;
  /** Stores a queued task and dispatches it in the background; resolves with its id (Form A's model). */
  queue(req: ProbeRequest): Promise<Created<string>>;
  /** A task as `viewer` (an account id, or undefined for anonymous callers) may see it; 404 otherwise. */
  get(id: string, viewer: string | undefined): Promise<TaskRecord>;
  /** The caller's probe quota now, without spending any; undefined when unlimited. */
  quota(caller: ProbeCaller): RateLimitStatus | undefined;
  /** See `planProbe`: a Form A-shaped probe body → a checked job spec (for monitors). */
  plan(type: ProbeType, body: unknown, path: string): ProbePlan;
  /** See `executeProbe`: one run on the plan's nodes, nothing stored. */
  execute(plan: ProbePlan, opts: { count: number; jobId: string }): Promise<NodeResult[]>;
}

/** A probe other modules run (monitors): built from a Form A-shaped body, checked against the guard. */
export interface ProbePlan {
  spec: ProbeJobSpec;
  target: string;
  nodeIds?: readonly string[] | undefined;
}

/**
 * Parses `{target, node_ids?, params?}` (Form A's probe body, whatever the API form) into a job spec and
 * checks the target against the guard. Throws 400 `validation_error` with `path` prefixed to each issue
 * (e.g. `body.config`), 422 `target_not_allowed`.
 */
export function planProbe(deps: ProbeDeps, type: ProbeType, body: unknown, path: string): ProbePlan {
  const parsed = formABodies[type].safeParse(body);
  if (!parsed.success) throw validationError(parsed.error, path);
  const input = (fromFormA[type] as (b: unknown) => ProbeInput)(parsed.data);
  const paths = { target: `${path}.target`, server: `${path}.params.server`, nodes: `${path}.node_ids` };
  assertTargetAllowed(input.spec, deps.allowPrivateTargets, paths);
  return { spec: input.spec, target: input.target, nodeIds: input.nodeIds };
}

/**
 * Runs a planned probe once on its nodes (named, else `count` chosen as for API probes) and returns every
 * node's result; nothing is stored and no quota is spent (monitors have their own limits). Never rejects for
 * a node's failure: offline or silent nodes are entries with node-level errors. 503 when no node is online.
 */
export async function executeProbe(
  deps: ProbeDeps,
  plan: ProbePlan,
  opts: { count: number; jobId: string },
): Promise<NodeResult[]> {
  assertTargetAllowed(plan.spec, deps.allowPrivateTargets, { target: "target", server: "server" });
  const nodes = await selectNodes(deps.directory, {
    type: plan.spec.type,
    requested: plan.nodeIds ? { ids: plan.nodeIds, field: "node_ids" } : undefined,
    count: opts.count,
    family: literalTargetFamily(plan.spec),
    offlineAfterMs: deps.offlineAfterMs,
  });
  const timeoutMs = dispatchTimeoutMs(plan.spec);
  return Promise.all(
    nodes.map((node, position) =>
      dispatchToNode({
        transport: deps.transport,
        directory: deps.directory,
        node,
        position,
        spec: plan.spec,
        jobId: `${opts.jobId}.${position}`,
        timeoutMs,
      }),
    ),
  );
}

export function probesService(deps: ProbeDeps): ProbesService {
  return {
    plan: (type, body, path) => planProbe(deps, type, body, path),
    execute: (plan, opts) => executeProbe(deps, plan, opts),
    run: (req) => runProbeTask(deps, req),
    queue: (req) => queueProbeTask(deps, req),
    get: (id, viewer) => getProbeTask(deps, id, viewer),
    quota: (caller) => deps.quota.peek(caller),
  };
}
