import type { Transaction } from "kysely";
import { logRoundFailure } from "../../db/availability.js";
import type { Database } from "../../db/schema.js";
import type { AppDeps, Module, Worker } from "../../deps.js";
import { requireAuth } from "../../http/auth.js";
import type { Authenticator } from "../../http/authenticator.js";
import type { Router } from "../../http/router.js";
import type { NodesService } from "../nodes/index.js";
import type { ProbesService } from "../probes/index.js";
import { planMonitorProbe } from "./config.js";
import type { MonitorsContext } from "./context.js";
import { collectEvidence } from "./evidence.js";
import { createMaintenance, type MaintenanceService } from "./maintenance-service.js";
import { registerSchedulerMetrics } from "./metrics.js";
import { deleteOwnerRuns } from "./repo.js";
import { createMonitorResults } from "./results-service.js";
import { createRollupJob } from "./rollups.js";
import { registerMaintenanceRoutes } from "./routes/maintenance.js";
import { registerOpenMetricsRoutes } from "./routes/openmetrics.js";
import { registerMonitorCrudRoutes } from "./routes/register.js";
import { registerMonitorResultRoutes } from "./routes/register-results.js";
import { MONITORS_CHANNEL, type Scheduler, startScheduler } from "./scheduler.js";
import { createMonitorCrud, type MonitorCrudService } from "./service.js";
import { startStaleSweep } from "./stale.js";
import { createMonitorStatusReader, type MonitorStatusReader } from "./status-read.js";
import { RunWriter } from "./writer.js";

export type { MaintenanceService } from "./maintenance-service.js";
export type { SchedulerStats } from "./scheduler.js";
export { idParam as monitorIdParam, listQueryA, listQueryB } from "./schemas.js";
export type { MonitorCrudService } from "./service.js";
export type { DayTotals, MonitorStatusReader, MonitorSummary } from "./status-read.js";
export { toMonitorA, toMonitorB } from "./views.js";

export interface MonitorsModule extends Module<MonitorCrudService> {
  /** The `scheduler` role's share: claims due monitors and runs them; rolls results up and trims them. */
  readonly scheduler: Worker;
  /** Maintenance windows: the alert path asks which changes they cover (issue #29 item 4). */
  readonly maintenance: MaintenanceService;
  /** What status pages read: monitor summaries and daily uptime from the roll-ups. */
  readonly statusReader: MonitorStatusReader;
  /** The running scheduler's figures (claims, runs, lag) and the writer's; undefined when not running. */
  stats(): { scheduler: Scheduler["stats"]; writer: RunWriter["stats"] } | undefined;
  /** In an account's deletion (its transaction): the owner's monitor runs and roll-ups, which no foreign key removes. */
  eraseOwner(tx: Transaction<Database>, ownerId: string): Promise<void>;
}

/**
 * The longest an idle scheduler waits between claims when no monitor is due sooner (see
 * `SchedulerOptions.idleMaxMs`): a bound for a creation notice lost while the listen connection was down.
 */
const SCHEDULER_IDLE_MAX_MS = 10_000;

/**
 * The longest pause of the stale sweep (no completed run for two intervals, stale.ts): twenty ticks, 1–5 s
 * (5 s at the default tick). The sweep sleeps until the next monitor's stale deadline, at most this long.
 */
const staleSweepMs = (tickMs: number) => Math.min(Math.max(tickMs * 20, 1000), 5000);

/**
 * Monitors: recurring probes through the same agents, probes and target guard as `POST /v1/probe/*`, run
 * by the scheduler role of any number of controllers (see scheduler.ts), their runs stored per node and
 * slot, rolled up, and turned into up/down state with a state-change row per transition.
 */
export function createMonitors(
  deps: AppDeps,
  services: {
    probes: ProbesService;
    authenticator: Authenticator;
    /** The online nodes: location filters and failure confirmation (scheduler.ts). */
    nodes?: Pick<NodesService, "online">;
  },
): MonitorsModule {
  const { config } = deps;
  const ctx: MonitorsContext = {
    db: deps.db.kysely,
    log: deps.log,
    form: config.VANTAGE_API_FORM,
    plans: config.VANTAGE_PLAN_LIMITS,
    allowPrivateTargets: config.VANTAGE_ALLOW_PRIVATE_TARGETS,
    now: Date.now,
  };
  const crud = createMonitorCrud(ctx, services.probes);
  const maintenance = createMaintenance(ctx.db, ctx.now);
  const results = createMonitorResults(ctx, maintenance);
  const rollups = createRollupJob(ctx, { retentionDays: config.VANTAGE_MONITOR_RETENTION_DAYS });
  let running:
    | {
        scheduler: Scheduler;
        writer: RunWriter;
        listening: { close(): Promise<void> };
        stale: { stop(): Promise<void> };
      }
    | undefined;

  let evidenceInFlight: Set<Promise<unknown>> | undefined;
  const schedulerWorker: Worker = {
    async start() {
      if (running) return;
      // Evidence on alert: a change to down starts the failing nodes' mtr (or traceroute) and DNS (evidence.ts).
      const collecting = new Set<Promise<unknown>>();
      const writer = new RunWriter(deps.db.kysely, deps.log, {
        onDown: (changes) => {
          for (const change of changes) {
            const p = collectEvidence(ctx, services.probes, change, services.nodes)
              .catch((err) =>
                deps.log.warn({ err, monitor_id: change.monitorId }, "alert evidence not collected"),
              )
              .finally(() => collecting.delete(p));
            collecting.add(p);
          }
        },
      });
      evidenceInFlight = collecting;
      const scheduler = startScheduler(ctx, services.probes, writer, {
        tickMs: config.VANTAGE_SCHEDULER_TICK_MS,
        idleMaxMs: SCHEDULER_IDLE_MAX_MS,
        batch: config.VANTAGE_SCHEDULER_BATCH,
        planOf: (m) => planMonitorProbe(services.probes, m, "monitor"),
        nodes: services.nodes,
      });
      // A monitor created, resumed or re-timed (here or by another controller) wakes the scheduler; so
      // does the listen connection coming back (a notice may have been missed meanwhile).
      const listening = await deps.db.listen(
        MONITORS_CHANNEL,
        () => scheduler.wake(),
        () => scheduler.wake(),
      );
      const stale = startStaleSweep(deps.db.kysely, staleSweepMs(config.VANTAGE_SCHEDULER_TICK_MS), (err) =>
        logRoundFailure(deps.log, err, "stale monitor sweep failed; trying again"),
      );
      running = { scheduler, writer, listening, stale };
      registerSchedulerMetrics(deps.metrics.registry, () => running);
      await rollups.start();
    },
    async stop() {
      await rollups.stop();
      await running?.listening.close();
      await running?.stale.stop();
      await running?.scheduler.stop();
      await Promise.allSettled([...(evidenceInFlight ?? [])]);
      running = undefined;
    },
  };

  return {
    service: crud,
    routes(app: Router) {
      const form = config.VANTAGE_API_FORM;
      registerMonitorCrudRoutes(app, crud, requireAuth(services.authenticator), form);
      registerMonitorResultRoutes(app, results, requireAuth(services.authenticator, { scope: "read" }), form);
      registerMaintenanceRoutes(app, maintenance, requireAuth(services.authenticator), form);
      registerOpenMetricsRoutes(app, ctx.db, requireAuth(services.authenticator), form, ctx.now);
    },
    scheduler: schedulerWorker,
    maintenance,
    statusReader: createMonitorStatusReader(deps.db.kysely),
    workers: [
      {
        role: "scheduler",
        name: "monitor-scheduler",
        start: () => schedulerWorker.start(),
        stop: () => schedulerWorker.stop(),
      },
    ],
    eraseOwner: (tx, ownerId) => deleteOwnerRuns(tx, ownerId),
    stats: () => (running ? { scheduler: running.scheduler.stats, writer: running.writer.stats } : undefined),
  };
}
