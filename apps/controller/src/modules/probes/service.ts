import type { ProbeJobSpec, ProbeType } from "@vantage/probes";
import { fieldError, notFound, validationError } from "../../http/errors.js";
import type { RateLimitStatus } from "../../http/rate-limit/index.js";
import { dispatchTimeoutMs } from "./deadlines.js";
import { dispatchToNode, type NodeResult } from "./dispatch.js";
import { followTask, type TaskFollow } from "./follow-task.js";
import { formABodies, fromFormA } from "./form-a.js";
import { listOwnedTasks, type TaskSummary } from "./history-repo.js";
import type { Created, ProbeDeps } from "./probe-deps.js";
import type { ProbeCaller } from "./quota.js";
import { findTask, type TaskRecord, taskIdTime } from "./repo.js";
import type { ProbeInput, ProbeRequest } from "./request.js";
import { UNWRITTEN_GRACE_MS } from "./result-writer.js";
import { queueProbeTask, runProbeTask, type Started, startProbeTask } from "./run-task.js";
import { selectNodes } from "./select-nodes.js";
import { ABANDONED_AFTER_MS } from "./sweeper.js";
import { assertTargetAllowed, literalTargetFamily } from "./target-check.js";

export type { Created, ProbeDeps } from "./probe-deps.js";
export type { ProbeInput, ProbeRequest } from "./request.js";
export {
  finalStatus,
  queueProbeTask,
  runProbeTask,
  type Started,
  startProbeTask,
} from "./run-task.js";

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
  const missing = () => notFound(`probe task ${id}`);
  if (!/^task_[a-z0-9]{1,40}$/.test(id)) throw missing();
  const now = Date.now();
  const createdAt = taskIdTime(id);
  const recent = createdAt !== undefined && createdAt > now - ABANDONED_AFTER_MS && createdAt < now + 60_000;
  const waitUntil = recent ? now + UNWRITTEN_GRACE_MS : now;
  for (;;) {
    const task = deps.writer.peek(id) ?? (await findTask(deps.db, id));
    if (task) {
      if (task.owner_id !== null && task.owner_id !== viewer) throw missing();
      return task;
    }
    if (Date.now() >= waitUntil) throw missing();
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** The probe verbs other modules (scheduler, MCP, dashboard) and the routes call. */
export interface ProbesService {
  /** Runs a probe on its nodes and resolves with the finished task (Form B's model). */
  run(req: ProbeRequest): Promise<Created<TaskRecord>>;
  /** Stores a queued task and dispatches it in the background; resolves with its id (Form A's model). */
  queue(req: ProbeRequest): Promise<Created<string>>;
  /** `run`, resolving as soon as the task has started (for a caller that follows it as it runs). */
  start(req: ProbeRequest): Promise<Created<Started>>;
  /**
   * Follows a task as `viewer` may see it (404 as `get`): what it has so far, then each result as it
   * arrives and the finished task, whichever controller runs it (see follow-task.ts).
   */
  follow(id: string, viewer: string | undefined): Promise<TaskFollow>;
  /** A task as `viewer` (an account id, or undefined for anonymous callers) may see it; 404 otherwise. */
  get(id: string, viewer: string | undefined): Promise<TaskRecord>;
  /** A page of the account's own tasks, newest first, without their results (`type` narrows it). */
  list(
    ownerId: string,
    q: { page: number; limit: number; type?: string | undefined },
  ): Promise<{ items: TaskSummary[]; total: number }>;
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
  // A monitor's nodes are fixed when it is made: by id (a place or an earlier task would change under it).
  if (input.locations) throw fieldError(`${path}.locations`, "not for monitors: name node ids");
  if (input.reuse) throw fieldError(`${path}.reuse`, "not for monitors: name node ids");
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
        quarantine: deps.quarantine,
        hopNetworks: deps.hopNetworks,
        // A monitor's check keeps no signature: no Ed25519 check per result.
        signatures: "ignore",
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
    start: (req) => startProbeTask(deps, req),
    follow: (id, viewer) => followTask({ ...deps, get: (i, v) => getProbeTask(deps, i, v) }, id, viewer),
    get: (id, viewer) => getProbeTask(deps, id, viewer),
    list: (ownerId, q) => listOwnedTasks(deps.db, ownerId, q),
    quota: (caller) => deps.quota.peek(caller),
  };
}
