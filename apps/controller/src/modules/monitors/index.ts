import { Counter, Gauge } from "prom-client";
import type { AppDeps, Module, Worker } from "../../deps.js";
import { requireAuth } from "../../http/auth.js";
import type { Authenticator } from "../../http/authenticator.js";
import type { Router } from "../../http/router.js";
import type { ProbesService } from "../probes/index.js";
import { planMonitorProbe } from "./config.js";
import type { MonitorsContext } from "./context.js";
import { createMonitorResults } from "./results-service.js";
import { createRollupJob } from "./rollups.js";
import { registerMonitorCrudRoutes } from "./routes/register.js";
import { registerMonitorResultRoutes } from "./routes/register-results.js";
import { MONITORS_CHANNEL, type Scheduler, startScheduler } from "./scheduler.js";
import { createMonitorCrud, type MonitorCrudService } from "./service.js";
import { RunWriter } from "./writer.js";

export type { SchedulerStats } from "./scheduler.js";
export { idParam as monitorIdParam, listQueryA, listQueryB } from "./schemas.js";
export type { MonitorCrudService } from "./service.js";
export { toMonitorA, toMonitorB } from "./views.js";

export interface MonitorsModule extends Module<MonitorCrudService> {
  /** The `scheduler` role's share: claims due monitors and runs them; rolls results up and trims them. */
  readonly scheduler: Worker;
  /** The running scheduler's figures (claims, runs, lag) and the writer's; undefined when not running. */
  stats(): { scheduler: Scheduler["stats"]; writer: RunWriter["stats"] } | undefined;
}

/**
 * The longest an idle scheduler waits between claims when no monitor is due sooner (see
 * `SchedulerOptions.idleMaxMs`): a bound for a creation notice lost while the listen connection was down.
 */
const SCHEDULER_IDLE_MAX_MS = 10_000;

/**
 * Monitors: recurring probes through the same agents, probes and target guard as `POST /v1/probe/*`, run
 * by the scheduler role of any number of controllers (see scheduler.ts), their runs stored per node and
 * slot, rolled up, and turned into up/down state with a state-change row per transition.
 */
export function createMonitors(
  deps: AppDeps,
  services: { probes: ProbesService; authenticator: Authenticator },
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
  const results = createMonitorResults(ctx);
  const rollups = createRollupJob(ctx, { retentionDays: config.VANTAGE_MONITOR_RETENTION_DAYS });
  const registry = deps.metrics.registry;
  let running: { scheduler: Scheduler; writer: RunWriter; listening: { close(): Promise<void> } } | undefined;
  const metricsOf = () => running;
  new Counter({
    name: "vantage_monitor_runs_total",
    help: "Monitor runs finished by this controller's scheduler",
    registers: [registry],
    collect() {
      this.reset();
      this.inc(metricsOf()?.scheduler.stats.finished ?? 0);
    },
  });
  new Counter({
    name: "vantage_monitor_duplicate_rows_total",
    help: "Monitor run rows refused as already stored (a slot run twice); 0 in a healthy deployment",
    registers: [registry],
    collect() {
      this.reset();
      this.inc(metricsOf()?.writer.stats.duplicateRows ?? 0);
    },
  });
  new Gauge({
    name: "vantage_monitor_schedule_lag_seconds",
    help: "Schedule lag of this controller's last 10,000 monitor runs (dispatch time − slot), by quantile",
    labelNames: ["quantile"],
    registers: [registry],
    collect() {
      this.reset();
      const lags = [...(metricsOf()?.scheduler.stats.lagMs ?? [])].sort((x, y) => x - y);
      if (lags.length === 0) return;
      for (const q of [0.5, 0.99]) {
        const v = lags[Math.min(lags.length - 1, Math.floor(q * lags.length))] ?? 0;
        this.set({ quantile: String(q) }, v / 1000);
      }
    },
  });
  new Counter({
    name: "vantage_monitor_runs_skipped_total",
    help: "Monitor runs not made: no node online or able to run them (node-level errors), or an invalid probe",
    registers: [registry],
    collect() {
      this.reset();
      this.inc(metricsOf()?.scheduler.stats.skipped ?? 0);
    },
  });
  new Counter({
    name: "vantage_monitor_node_errors_total",
    help: "Node entries left out of monitor runs because the node could not run the probe (busy, offline, silent)",
    registers: [registry],
    collect() {
      this.reset();
      this.inc(metricsOf()?.scheduler.stats.nodeErrors ?? 0);
    },
  });
  new Gauge({
    name: "vantage_monitor_runs_in_flight",
    help: "Monitor runs dispatched and not yet finished",
    registers: [registry],
    collect() {
      this.set(metricsOf()?.scheduler.stats.inFlight ?? 0);
    },
  });

  return {
    service: crud,
    routes(app: Router) {
      const form = config.VANTAGE_API_FORM;
      registerMonitorCrudRoutes(app, crud, requireAuth(services.authenticator), form);
      registerMonitorResultRoutes(app, results, requireAuth(services.authenticator, { scope: "read" }), form);
    },
    scheduler: {
      async start() {
        if (running) return;
        const writer = new RunWriter(deps.db.kysely, deps.log);
        const scheduler = startScheduler(ctx, services.probes, writer, {
          tickMs: config.VANTAGE_SCHEDULER_TICK_MS,
          idleMaxMs: SCHEDULER_IDLE_MAX_MS,
          batch: config.VANTAGE_SCHEDULER_BATCH,
          planOf: (m) => planMonitorProbe(services.probes, m, "monitor"),
        });
        // A monitor created, resumed or re-timed (here or by another controller) wakes the scheduler; so
        // does the listen connection coming back (a notice may have been missed meanwhile).
        const listening = await deps.db.listen(
          MONITORS_CHANNEL,
          () => scheduler.wake(),
          () => scheduler.wake(),
        );
        running = { scheduler, writer, listening };
        await rollups.start();
      },
      async stop() {
        await rollups.stop();
        await running?.listening.close();
        await running?.scheduler.stop();
        running = undefined;
      },
    },
    stats: () => (running ? { scheduler: running.scheduler.stats, writer: running.writer.stats } : undefined),
  };
}
