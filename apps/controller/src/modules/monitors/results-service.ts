import type { MonitorState, MonitorStateReason } from "../../db/tables/monitors.js";
import { notFound } from "../../http/errors.js";
import type { MonitorsContext } from "./context.js";
import { type ExportFormat, exportStream } from "./export.js";
import { nodeLocations } from "./locations.js";
import { runsInIntervals } from "./maintenance-repo.js";
import type { MaintenanceService } from "./maintenance-service.js";
import * as repo from "./results-repo.js";
import { type StaleSpell, staleSpells, unknownMs } from "./stale.js";
import { runPassed } from "./state.js";

export { createRollupJob, type RollupJob, type RollupReport } from "./rollups.js";

export const UPTIME_WINDOWS = { "24h": 86_400_000, "7d": 7 * 86_400_000, "30d": 30 * 86_400_000 } as const;
export type UptimeWindow = keyof typeof UPTIME_WINDOWS;

export interface RunResult {
  slot: Date;
  /** The run's outcome: strictly more than half of its nodes passed. */
  success: boolean;
  nodes: {
    node_id: string;
    success: boolean;
    latency_ms: number | null;
    error_code: string | null;
    /** http monitors: the status the node was answered with (absent without an answer). */
    status_code?: number;
  }[];
}

export interface Uptime {
  window: UptimeWindow;
  from: Date;
  to: Date;
  runs: number;
  /** Failing runs outside maintenance windows. */
  failures: number;
  /**
   * Maintenance inside the window (issue #29 item 4): its length, and the runs and failing runs in it (from
   * the raw runs, kept VANTAGE_MONITOR_RETENTION_DAYS); those failures do not count against uptime.
   */
  maintenance: { seconds: number; runs: number; failures: number };
  /** null when the window holds no run. */
  uptime_percent: number | null;
  latency_p50_ms: number | null;
  latency_p95_ms: number | null;
  state: MonitorState;
  state_changed_at: Date | null;
  /** Time in the window with no completed run (stale spells, see stale.ts): unknown, neither up nor down. */
  unknown_ms: number;
  unknown_percent: number;
  gaps: { from: Date; to: Date | null; reason: MonitorStateReason }[];
  /** Per node: its newest run in the window (up when it passed), newest state first by node id. */
  nodes: {
    node_id: string;
    state: "up" | "down";
    last_slot: Date;
    error_code: string | null;
    status_code?: number;
    /** Where the node is (per-location state), as it last said; absent for a node no longer known. */
    location?: { country: string; region: string; provider: string };
  }[];
}

/**
 * The newest runs and the stale spells among them: where no run completed (issue #29), the list has no
 * rows, and `gaps` says from when to when and why, so that a reader sees the hole rather than missing rows.
 */
export interface RunList {
  /** Newest first. */
  runs: RunResult[];
  /**
   * The stale spells from the oldest run listed on (every spell when the list holds every stored run),
   * newest first, as the runs; the one going on has `to: null`.
   */
  gaps: StaleSpell[];
}

/** What the results routes (and later the dashboard, alerts, MCP) read of a monitor's runs. */
export interface MonitorResultsService {
  /** The newest `limit` runs and the gaps among them; another account's or an unknown monitor → 404. */
  results(userId: string, monitorId: string, limit: number): Promise<RunList>;
  /** Runs, failures, uptime and latency over the window; another account's or an unknown monitor → 404. */
  uptime(userId: string, monitorId: string, window: UptimeWindow): Promise<Uptime>;
  /** The runs in `[from, to)` as a stream of NDJSON or CSV lines; another account's or an unknown monitor → 404. */
  export(
    userId: string,
    monitorId: string,
    range: { from: Date; to: Date },
    format: ExportFormat,
  ): Promise<ReadableStream<Uint8Array>>;
}

const HOUR_MS = 3_600_000;
const round = (v: number, digits: number) => Math.round(v * 10 ** digits) / 10 ** digits;

export function createMonitorResults(
  ctx: MonitorsContext,
  maintenance?: Pick<MaintenanceService, "intervals">,
): MonitorResultsService {
  async function owned(userId: string, monitorId: string): Promise<repo.ResultsMonitor> {
    const m = await repo.findMonitor(ctx.db, monitorId);
    if (!m || m.owner_id !== userId) throw notFound("monitor");
    return m;
  }

  return {
    async export(userId, monitorId, range, format) {
      const m = await owned(userId, monitorId);
      return exportStream(ctx.db, m.seq, range.from, range.to, format);
    },

    async results(userId, monitorId, limit) {
      const m = await owned(userId, monitorId);
      const rows = await repo.newestRuns(ctx.db, m.seq, limit);
      const out: RunResult[] = [];
      for (const r of rows) {
        let run = out.at(-1);
        if (!run || run.slot.getTime() !== r.slot.getTime()) {
          run = { slot: r.slot, success: false, nodes: [] };
          out.push(run);
        }
        run.nodes.push({
          node_id: r.node_id,
          success: r.success,
          latency_ms: r.latency_ms === null ? null : round(r.latency_ms, 3),
          error_code: r.error_code,
          ...(r.status_code === null ? {} : { status_code: r.status_code }),
        });
      }
      for (const run of out) run.success = runPassed(run.nodes.map((n) => n.success));
      // A full list starts at its oldest run; a shorter one holds every stored run, so every spell counts.
      const since = out.length >= limit ? (out.at(-1)?.slot ?? new Date(0)) : new Date(0);
      const spells = await staleSpells(ctx.db, monitorId, since, new Date(ctx.now()));
      return { runs: out, gaps: spells.reverse() };
    },

    /**
     * `[from, to)`: `to` is now, `from` is now − window rounded down to the hour. Whole hours come from the
     * `hour` buckets up to where the roll-up job has got to, the rest (the newest hour or two, or everything
     * when the job has not run) from the raw runs, so a new monitor's runs count at once. Percentiles: the
     * parts' percentiles averaged, weighted by their runs.
     */
    async uptime(userId, monitorId, window) {
      const m = await owned(userId, monitorId);
      const to = ctx.now();
      const from = Math.floor((to - UPTIME_WINDOWS[window]) / HOUR_MS) * HOUR_MS;
      const hoursDone = (await repo.readProgress(ctx.db)).hour?.getTime() ?? from;
      const split = Math.min(Math.max(hoursDone, from), to);
      const [spells, nodes, ...parts] = await Promise.all([
        staleSpells(ctx.db, monitorId, new Date(from), new Date(to)),
        repo.latestPerNode(ctx.db, m.seq, new Date(from)),
        split > from ? repo.bucketTotals(ctx.db, m.seq, "hour", new Date(from), new Date(split)) : undefined,
        repo.rawTotals(ctx.db, m.seq, new Date(split), new Date(to)),
      ]);
      let runs = 0;
      let failures = 0;
      let weight = 0;
      let p50 = 0;
      let p95 = 0;
      const unknown = unknownMs(spells, from, to);
      const where = await nodeLocations(
        ctx.db,
        nodes.map((n) => n.node_id),
      );
      for (const p of parts as (Awaited<ReturnType<typeof repo.rawTotals>> | undefined)[]) {
        if (!p) continue;
        runs += p.runs;
        failures += p.failures;
        weight += p.latencyWeight;
        p50 += p.p50Sum;
        p95 += p.p95Sum;
      }
      const spans = (await maintenance?.intervals(userId, monitorId, from, to)) ?? [];
      const inMaintenance = await runsInIntervals(ctx.db, m.seq, spans);
      failures = Math.max(0, failures - inMaintenance.failures);
      return {
        window,
        from: new Date(from),
        to: new Date(to),
        runs,
        failures,
        maintenance: {
          seconds: Math.round(spans.reduce((n, [s, e]) => n + (e - s), 0) / 1000),
          ...inMaintenance,
        },
        uptime_percent: runs === 0 ? null : round(((runs - failures) / runs) * 100, 3),
        latency_p50_ms: weight === 0 ? null : round(p50 / weight, 1),
        latency_p95_ms: weight === 0 ? null : round(p95 / weight, 1),
        state: m.state,
        state_changed_at: m.state_changed_at,
        unknown_ms: unknown,
        unknown_percent: to > from ? round((unknown / (to - from)) * 100, 3) : 0,
        gaps: spells,
        nodes: nodes.map((n) => ({
          node_id: n.node_id,
          state: n.success ? ("up" as const) : ("down" as const),
          last_slot: new Date(n.slot),
          error_code: n.error_code,
          ...(n.status_code === null ? {} : { status_code: n.status_code }),
          ...locationOf(where, n.node_id),
        })),
      };
    },
  };
}

/** `{location}` of a node when known, else nothing (the field is left out, not undefined). */
function locationOf(
  where: Map<string, { country: string; region: string; provider: string }>,
  nodeId: string,
): { location?: { country: string; region: string; provider: string } } {
  const location = where.get(nodeId);
  return location ? { location } : {};
}
