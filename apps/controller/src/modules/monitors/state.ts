import type { MonitorState } from "../../db/tables/monitors.js";

export interface StreakState {
  state: MonitorState;
  failStreak: number;
  passStreak: number;
}

export interface Thresholds {
  /** Failing runs in a row before `down` (default 2). */
  failure: number;
  /** Passing runs in a row before `up` again (default 1). */
  recovery: number;
}

export const DEFAULT_THRESHOLDS: Thresholds = { failure: 2, recovery: 1 };

/**
 * One run's outcome applied to a monitor's state: `down` after `failure` failing runs in a row, `up` after
 * `recovery` passing runs in a row; `unknown` until either happens first. Returns the new state and, when it
 * changed, the transition.
 */
export function applyRun(
  current: StreakState,
  passed: boolean,
  t: Thresholds,
): StreakState & { changed: { from: MonitorState; to: MonitorState } | null } {
  const failStreak = passed ? 0 : current.failStreak + 1;
  const passStreak = passed ? current.passStreak + 1 : 0;
  let state = current.state;
  if (passed && state !== "up" && passStreak >= t.recovery) state = "up";
  if (!passed && state !== "down" && failStreak >= t.failure) state = "down";
  return {
    state,
    failStreak,
    passStreak,
    changed: state === current.state ? null : { from: current.state, to: state },
  };
}

/** A run passes when strictly more than half of its nodes pass (one node: that node; two: both). */
export function runPassed(nodePasses: readonly boolean[]): boolean {
  const passing = nodePasses.filter(Boolean).length;
  return nodePasses.length > 0 && passing * 2 > nodePasses.length;
}

/**
 * A run's verdict under the monitor's quorum: with `quorum` k, the run fails when k or more of its nodes
 * fail (k above the nodes that answered: when all of them fail); without it, the majority rule above.
 */
export function runVerdict(nodePasses: readonly boolean[], quorum?: number): boolean {
  if (nodePasses.length === 0) return false;
  if (quorum === undefined) return runPassed(nodePasses);
  const failing = nodePasses.filter((p) => !p).length;
  return failing < Math.min(quorum, nodePasses.length);
}
