import type { AppDeps, Module, Worker } from "../../deps.js";
import { chain, optionalAuth, requireAuth } from "../../http/auth.js";
import type { Authenticator } from "../../http/authenticator.js";
import { openRoute, securedRoute } from "../../http/route-kit.js";
import type { Router } from "../../http/router.js";
import { StreamSlots } from "../../http/stream-slots.js";
import { createSecretBox, type SecretBox } from "../../lib/secret-box.js";
import { resolveSecretKey } from "../../lib/secret-key.js";
import type { NodesService } from "../nodes/index.js";
import type { PlansService } from "../plans/index.js";
import { BackgroundWork } from "./background.js";
import { completionHooks } from "./callback.js";
import type { HopNetworks } from "./hop-networks.js";
import { LiveTasks } from "./live-tasks.js";
import { ProbeQuarantine } from "./quarantine.js";
import { ResultWal, startResultLogDrain } from "./result-wal.js";
import { ResultWriter } from "./result-writer.js";
import { registerCreateProbes } from "./routes/create-probe.js";
import { registerExportTask } from "./routes/export-task.js";
import { registerGetQuota } from "./routes/get-quota.js";
import { registerGetTask } from "./routes/get-task.js";
import { registerListTasks } from "./routes/list-tasks.js";
import { registerPublicShare } from "./routes/public-share.js";
import { registerShareTask } from "./routes/share-task.js";
import { getProbeTask, type ProbeDeps, type ProbesService, probesService } from "./service.js";
import { type SharesService, sharesService } from "./shares.js";
import { startTaskSweeper, sweepEveryMs, type TaskSweeper } from "./sweeper.js";
import { TaskWatch } from "./task-watch.js";
import { WriteRetry } from "./write-retry.js";

export { DISPATCH_GRACE_MS, dispatchTimeoutMs, probeBudgetMs } from "./deadlines.js";
export { type NodeResult, nodeErrorCodes } from "./dispatch.js";
export type { StreamNode, TaskFollow } from "./follow-task.js";
export { formABodies, fromFormA } from "./form-a.js";
export { formBBodies, fromFormB } from "./form-b.js";
export type { TaskSummary } from "./history-repo.js";
export type { LiveEvent } from "./live-tasks.js";
export type { ProbeCaller } from "./quota.js";
export type { TaskRecord } from "./repo.js";
export { type ApiResult, toApiResult } from "./result-schemas.js";
export { toExportView } from "./routes/export-task.js";
export { TASKS_PAGE_SIZE, toTaskSummaryView } from "./routes/list-tasks.js";
export { originOf, toShareView } from "./routes/share-task.js";
export { MAX_NODE_IDS } from "./select-nodes.js";
export type { Created, ProbeInput, ProbePlan, ProbeRequest, ProbesService, Started } from "./service.js";
export type { SharesService } from "./shares.js";
export { ABANDONED_AFTER_MS, type TaskSweeper } from "./sweeper.js";
export { hostPort } from "./target-fields.js";

export interface ProbesModule extends Module<ProbesService> {
  /**
   * The scheduler role's share: probe tasks a stopped controller left unfinished become `failed`, and the
   * answered tasks a killed one left in the results write-ahead log are stored (ADR 0012).
   */
  readonly sweeper: Worker;
  /** Share links and exports (the share and export routes' service; MCP's share tools call it too). */
  readonly shares: SharesService;
  /**
   * Form A dispatches and Form B writes in flight: awaited on shutdown. Writes
   * still failing `graceMs` after the call (the database away) are given up, logged with their task ids.
   */
  drain(graceMs?: number): Promise<void>;
}

/**
 * Probes: nodes come from the nodes service's directory; credentials (optional on every probe route) are
 * checked by the process's one authenticator. Form A's background dispatches and Form B's runs and result
 * writes run on one `BackgroundWork`, drained on shutdown. Live streams (SSE) follow tasks running here in
 * memory (`LiveTasks`) and tasks running elsewhere through the database (`TaskWatch`, closed on drain).
 */
export function createProbes(
  deps: AppDeps,
  services: {
    nodes: NodesService;
    authenticator: Authenticator;
    plans: PlansService;
    hopNetworks?: HopNetworks | undefined;
  },
): ProbesModule {
  const background = new BackgroundWork();
  const retry = new WriteRetry(deps.log);
  const watch = new TaskWatch({
    db: deps.db.kysely,
    listen: (channel, onMessage, onListen) => deps.db.listen(channel, onMessage, onListen),
    log: deps.log,
  });
  const wal = deps.resultsLog && new ResultWal(deps.resultsLog, deps.instanceId, background, deps.log);
  const probeDeps: ProbeDeps = {
    db: deps.db.kysely,
    transport: deps.transport,
    directory: services.nodes.directory,
    background,
    writer: new ResultWriter(deps.db.kysely, background, deps.log, {
      retry,
      ...(wal ? { onSettled: (batch) => wal.stored(batch) } : {}),
    }),
    wal,
    retry,
    controllerId: deps.instanceId,
    live: new LiveTasks(),
    watch,
    quota: {
      take: (caller, cost) => services.plans.charge("probes", caller, cost),
      peek: (caller) => services.plans.peek("probes", caller)[0],
      record: (caller, units) => services.plans.record(caller, "probes", units),
    },
    log: deps.log,
    defaultNodes: deps.config.VANTAGE_DEFAULT_NODES,
    offlineAfterMs: deps.config.VANTAGE_NODE_OFFLINE_AFTER_MS,
    allowPrivateTargets: deps.config.VANTAGE_ALLOW_PRIVATE_TARGETS,
    quarantine: new ProbeQuarantine(deps.log),
    hopNetworks: services.hopNetworks,
  };
  probeDeps.hooks = completionHooks({
    box: secretBoxOrNone(deps),
    allowPrivate: deps.config.VANTAGE_ALLOW_PRIVATE_TARGETS,
    lookup: deps.hostLookup,
    log: deps.log,
    publicUrl: deps.config.VANTAGE_PUBLIC_URL,
  });
  const service = probesService(probeDeps);
  const shares = sharesService(probeDeps, (id, viewer) => getProbeTask(probeDeps, id, viewer));
  let sweeper: TaskSweeper | undefined;
  let walDrain: { stop(): Promise<void> } | undefined;
  const sweeperWorker: Worker = {
    async start() {
      const leaseTtlMs = deps.config.VANTAGE_CONTROLLER_LEASE_MS;
      sweeper ??= startTaskSweeper({
        db: deps.db.kysely,
        log: deps.log,
        leaseTtlMs,
        retentionDays: deps.config.VANTAGE_PROBE_RETENTION_DAYS,
      });
      if (deps.resultsLog)
        walDrain ??= startResultLogDrain({
          log: deps.resultsLog,
          db: deps.db.kysely,
          ownId: deps.instanceId,
          logger: deps.log,
          intervalMs: sweepEveryMs(leaseTtlMs),
          leaseTtlMs,
        });
    },
    async stop() {
      await walDrain?.stop();
      walDrain = undefined;
      await sweeper?.stop();
      sweeper = undefined;
    },
  };

  return {
    service,
    shares,
    routes(app: Router) {
      const form = deps.config.VANTAGE_API_FORM;
      const auth = optionalAuth(services.authenticator);
      const live = {
        heartbeatMs: deps.config.VANTAGE_SSE_HEARTBEAT_MS,
        log: deps.log,
        streams: new StreamSlots({
          perIp: deps.config.VANTAGE_STREAMS_PER_IP,
          perAccount: deps.config.VANTAGE_STREAMS_PER_ACCOUNT,
        }),
      };
      const metered = openRoute("probes", form, chain(auth, services.plans.gate("probes")));
      registerCreateProbes(app, service, metered, live, probeDeps.hooks);
      const common = openRoute("probes", form, auth);
      registerGetQuota(app, service, common);
      registerListTasks(app, service, securedRoute("probes", form, requireAuth(services.authenticator)));
      registerGetTask(app, service, common, live);
      const publicUrl = deps.config.VANTAGE_PUBLIC_URL;
      registerShareTask(
        app,
        shares,
        securedRoute("probes", form, requireAuth(services.authenticator)),
        publicUrl,
      );
      registerExportTask(app, shares, common);
      registerPublicShare(app, shares, form, publicUrl);
    },
    sweeper: sweeperWorker,
    workers: [
      {
        role: "scheduler",
        name: "sweeper",
        start: () => sweeperWorker.start(),
        stop: () => sweeperWorker.stop(),
      },
    ],
    async drain(graceMs = 10_000) {
      retry.closing(graceMs);
      await background.drain();
      await watch.stop();
    },
  };
}

/** The key callback secrets derive from (VANTAGE_SECRET_KEY, or the data dir's in embedded mode); none without. */
function secretBoxOrNone(deps: AppDeps): SecretBox | undefined {
  try {
    return createSecretBox(resolveSecretKey(deps.config, deps.log));
  } catch (err) {
    deps.log.warn({ err: (err as Error).message }, "probe callback_url refused: no secret key to sign with");
    return undefined;
  }
}
