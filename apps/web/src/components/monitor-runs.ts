import type { Run } from "../pages/account/monitor-shape.js";
import type { LatencySeries } from "./account-latency-chart.js";

/**
 * A monitor's runs read against its schedule. Runs fall on `phase + k·interval` (the controller's
 * slots.ts), so a gap of more than one interval between two runs, or since the newest one, holds runs the
 * schedule expected and that never came: missed runs (the scheduler was down, no node could run it).
 */

export type BeatKind = "pass" | "fail" | "missed";
export interface Beat {
  /** The slot, Unix ms. */
  at: number;
  kind: BeatKind;
  run?: Run;
}

/** How long a run's answers may take to be stored after its slot: the longest probe, and the writer's batch. */
const answerGraceMs = 35_000;

/** Missed slots within one gap are counted up to this many; a longer gap (a pause) stops there. */
const maxMissedPerGap = 60;

/**
 * Missed slots between `older` and `newer` (exclusive), oldest first. A gap not a whole number of
 * intervals (the interval changed) counts the whole intervals that fit.
 */
function missedBetween(older: number, newer: number, intervalMs: number): number[] {
  const n = Math.min(maxMissedPerGap, Math.round((newer - older) / intervalMs) - 1);
  const out: number[] = [];
  for (let k = 1; k <= n; k++) out.push(older + k * intervalMs);
  return out;
}

/**
 * Runs (newest first, as the API lists them) as beats oldest first, missed slots included, the last
 * `count` of them. While the monitor is active, the slots after the newest run are missed too once they are
 * past by more than an interval plus the time a run's answers may take (an interval, at least 35 s).
 */
export function beatsOf(
  runs: Run[],
  intervalS: number,
  opts: { now: number; active: boolean; count: number },
): Beat[] {
  const interval = intervalS * 1000;
  const ordered = [...runs].reverse();
  const beats: Beat[] = [];
  let prev: number | undefined;
  for (const run of ordered) {
    const at = Date.parse(run.slot);
    if (prev !== undefined && interval > 0)
      for (const m of missedBetween(prev, at, interval)) beats.push({ at: m, kind: "missed" });
    beats.push({ at, kind: run.success ? "pass" : "fail", run });
    prev = at;
  }
  if (opts.active && prev !== undefined && interval > 0) {
    const grace = Math.max(interval, answerGraceMs);
    const due = Math.min(maxMissedPerGap, Math.floor((opts.now - interval - grace - prev) / interval));
    for (let k = 1; k <= due; k++) beats.push({ at: prev + k * interval, kind: "missed" });
  }
  return beats.slice(-opts.count);
}

/**
 * The chart's data, oldest first: x in Unix seconds, one series per node. A node that passed has its
 * latency; one that failed is null (a gap in its line); one the run did not use is undefined (its line
 * goes on to its next run: each run may use another node). A missed slot is an x where every series is
 * null, so every line breaks there.
 */
export function chartData(
  beats: Beat[],
  names: Record<string, string>,
): { xs: number[]; series: LatencySeries[] } {
  const ids = [...new Set(beats.flatMap((b) => b.run?.nodes.map((n) => n.node_id) ?? []))].sort();
  return {
    xs: beats.map((b) => b.at / 1000),
    series: ids.map((id) => ({
      name: names[id] ?? id,
      values: beats.map((b) => {
        if (!b.run) return null;
        const n = b.run.nodes.find((x) => x.node_id === id);
        if (!n) return undefined;
        return n.success ? n.latency_ms : null;
      }),
    })),
  };
}
