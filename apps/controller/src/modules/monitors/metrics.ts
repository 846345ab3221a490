import { Counter, Gauge, type Registry } from "prom-client";
import type { Scheduler } from "./scheduler.js";
import type { RunWriter } from "./writer.js";

/** The running scheduler's figures, or undefined between a stop and the next start. */
export type RunningOf = () => { scheduler: Scheduler; writer: RunWriter } | undefined;

/**
 * The scheduler role's series on `registry`, registered when the role starts: a controller without the
 * role exports none of them (not zeros, which would read as a healthy scheduler). Registered once per
 * registry; a restarted scheduler reports through the same series.
 */
export function registerSchedulerMetrics(registry: Registry, runningOf: RunningOf): void {
  if (registry.getSingleMetric("vantage_monitor_runs_total")) return;
  new Counter({
    name: "vantage_monitor_runs_total",
    help: "Monitor runs finished by this controller's scheduler",
    registers: [registry],
    collect() {
      this.reset();
      this.inc(runningOf()?.scheduler.stats.finished ?? 0);
    },
  });
  new Counter({
    name: "vantage_monitor_duplicate_rows_total",
    help: "Monitor run rows refused as already stored (a slot run twice); 0 in a healthy deployment",
    registers: [registry],
    collect() {
      this.reset();
      this.inc(runningOf()?.writer.stats.duplicateRows ?? 0);
    },
  });
  new Gauge({
    name: "vantage_monitor_schedule_lag_seconds",
    help: "Schedule lag of this controller's last 10,000 monitor runs (dispatch time − slot), by quantile",
    labelNames: ["quantile"],
    registers: [registry],
    collect() {
      this.reset();
      const lags = [...(runningOf()?.scheduler.stats.lagMs ?? [])].sort((x, y) => x - y);
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
      this.inc(runningOf()?.scheduler.stats.skipped ?? 0);
    },
  });
  new Counter({
    name: "vantage_monitor_node_errors_total",
    help: "Node entries left out of monitor runs because the node could not run the probe (busy, offline, silent)",
    registers: [registry],
    collect() {
      this.reset();
      this.inc(runningOf()?.scheduler.stats.nodeErrors ?? 0);
    },
  });
  new Gauge({
    name: "vantage_monitor_runs_in_flight",
    help: "Monitor runs dispatched and not yet finished",
    registers: [registry],
    collect() {
      this.set(runningOf()?.scheduler.stats.inFlight ?? 0);
    },
  });
}
