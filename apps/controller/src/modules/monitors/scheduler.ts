import { sql } from "kysely";
import { logRoundFailure } from "../../db/availability.js";
import type { MonitorType } from "../../db/tables/monitors.js";
import { nodeErrorCodes, type ProbePlan, type ProbesService } from "../probes/index.js";
import type { MonitorsContext } from "./context.js";
import { httpStatus, nodeFailure } from "./evaluate.js";
import { type LocatedNode, type LocationFilter, pickLocations } from "./locations.js";
import { pauseBySystem } from "./repo.js";
import { DEFAULT_THRESHOLDS, runVerdict, type Thresholds } from "./state.js";
import type { RunWriter } from "./writer.js";

const nodeLevel = new Set<string>(nodeErrorCodes);
const LAG_SAMPLES = 10_000;

/** A claimed monitor: what one run needs. */
interface Claimed {
  id: string;
  seq: string | number;
  type: MonitorType;
  target: string;
  config: Record<string, unknown>;
  interval_s: number;
  slot: Date | string;
}

export interface SchedulerStats {
  claimed: number;
  /** Runs finished (written or queued for writing). */
  finished: number;
  /** Runs not made: no node online or none could run it, or the monitor's probe no longer valid (logged). */
  skipped: number;
  /** Node entries left out of runs because the node could not run the probe (offline, busy, silent). */
  nodeErrors: number;
  /** Failing runs resting on one node that were run again from a second node (see `confirm_failures`). */
  confirmations: number;
  /** Of those, the ones the second node did not confirm (the run then counts as passed). */
  unconfirmed: number;
  inFlight: number;
  /** Schedule lag of the last LAG_SAMPLES runs (dispatch time − slot), ms, in no particular order. */
  lagMs: number[];
}

/** NOTIFY'd (payload: the monitor's id) when a monitor's next run moves earlier: created, resumed, re-timed. */
export const MONITORS_CHANNEL = "vantage_monitors";

export interface SchedulerOptions {
  /** Between claims while monitors are due (and the shortest wait when none is). */
  tickMs: number;
  /**
   * When set, a claim that finds nothing due waits until the earliest active monitor is due, at most this
   * long, instead of one tick: an idle controller then asks the database once per `idleMaxMs` rather than
   * every tick. `wake()` (a MONITORS_CHANNEL notice) cuts the wait short.
   */
  idleMaxMs?: number | undefined;
  batch: number;
  /** Most runs in flight at once; claiming waits while it is reached. */
  maxInFlight?: number;
  /** Plans a monitor's probe (config.ts `planMonitorProbe`); the plan is cached per monitor and config. */
  planOf(m: { type: MonitorType; target: string; config: Record<string, unknown> }): ProbePlan;
  /**
   * The online nodes (the nodes module's): for monitors with a `locations` filter, and for confirming a
   * failure from a second node. Without it, locations are not filtered and failures not confirmed.
   */
  nodes?: { online(): Promise<LocatedNode[]> } | undefined;
}

export interface Scheduler {
  stop(): Promise<void>;
  readonly stats: SchedulerStats;
  /** One claim now (tests); resolves with how many monitors it took. */
  tick(): Promise<number>;
  /** A monitor may be due sooner than the scheduler is waiting: claim again now (then wait afresh). */
  wake(): void;
}

/**
 * The monitors' scheduler (the `scheduler` role; any number of controllers run it). Each tick claims due
 * active monitors with `FOR UPDATE SKIP LOCKED` and moves each one's `next_run_at` to its next slot in the
 * same statement, so no two schedulers take one monitor's slot; slots missed while no scheduler ran are
 * skipped, not replayed. Each claimed run goes to its nodes through the probes service and its outcome to
 * the writer. A paused or deleted monitor is never claimed again (a run already on its way finishes).
 */
export function startScheduler(
  ctx: MonitorsContext,
  probes: Pick<ProbesService, "execute">,
  writer: RunWriter,
  opts: SchedulerOptions,
): Scheduler {
  const stats: SchedulerStats = {
    claimed: 0,
    finished: 0,
    skipped: 0,
    nodeErrors: 0,
    confirmations: 0,
    unconfirmed: 0,
    inFlight: 0,
    lagMs: [],
  };
  const plans = new Map<string, { key: string; plan: ProbePlan }>();
  const maxInFlight = opts.maxInFlight ?? 20_000;
  let stopped = false;
  let lagWrites = 0;
  let timer: NodeJS.Timeout | undefined;
  let ticking: Promise<number> | undefined;
  const inFlight = new Set<Promise<void>>();

  const planOf = (m: Claimed): ProbePlan => {
    const key = JSON.stringify([m.type, m.target, m.config]);
    const hit = plans.get(m.id);
    if (hit && hit.key === key) return hit.plan;
    const plan = opts.planOf(m);
    if (plans.size > 200_000) plans.clear();
    plans.set(m.id, { key, plan });
    return plan;
  };

  const runOne = async (m: Claimed): Promise<void> => {
    const slot = new Date(m.slot);
    const lag = ctx.now() - slot.getTime();
    // A ring of the last LAG_SAMPLES: no array shifting on the run path.
    stats.lagMs[lagWrites++ % LAG_SAMPLES] = lag;
    const config = m.config ?? {};
    let results: Awaited<ReturnType<typeof probes.execute>>;
    const count = typeof config.node_count === "number" ? config.node_count : 1;
    const jobId = `mon.${m.seq}.${slot.getTime().toString(36)}`;
    let plan: ProbePlan;
    try {
      plan = planOf(m);
      const filter = config.locations as LocationFilter | undefined;
      if (filter && opts.nodes) {
        // Only nodes of the monitor's locations: none online there is a run not made (no_nodes).
        const ids = pickLocations(await opts.nodes.online(), { count, type: m.type, filter });
        if (ids.length === 0) {
          stats.skipped++;
          return;
        }
        plan = { ...plan, nodeIds: ids };
      }
      results = await probes.execute(plan, { count, jobId });
    } catch (err) {
      // No node online, or a probe the guard now refuses: not the target's failure; nothing is counted.
      stats.skipped++;
      ctx.log.warn({ err, monitor_id: m.id }, "monitor run skipped");
      return;
    }
    // A node's agent crashed while running this probe: the probe may be what ended it, so the monitor is
    // paused (with its reason) and not sent again to any agent until someone resumes it.
    const crashedOn = results.filter((r) => r.agent_crash).map((r) => r.node_id);
    if (crashedOn.length > 0) {
      try {
        if (await pauseBySystem(ctx.db, m.id, "agent_crash", new Date(ctx.now())))
          ctx.log.error(
            { monitor_id: m.id, nodes: crashedOn, paused_reason: "agent_crash" },
            "monitor paused: its run was in flight when a node's agent crashed; resume it once the cause is understood",
          );
      } catch (err) {
        ctx.log.error({ err, monitor_id: m.id }, "monitor to pause after an agent crash could not be paused");
      }
    }
    // A node that could not run the probe (offline, busy, silent) says nothing about the target: it is
    // left out of the run; a run no node could make is skipped like one with no node online.
    const outcomes = (rs: typeof results) =>
      rs
        .filter((r) => !(r.error && nodeLevel.has(r.error.code)))
        .map((r) => {
          const failure = nodeFailure(m.type, config, r);
          return {
            node_id: r.node_id,
            success: failure === null,
            latency_ms: r.latency_ms,
            error_code: failure,
            status_code: m.type === "http" ? httpStatus(r) : null,
          };
        });
    const nodes = outcomes(results);
    stats.nodeErrors += results.length - nodes.length;
    if (nodes.length === 0) {
      stats.skipped++;
      return;
    }
    const quorum = typeof config.quorum === "number" ? config.quorum : undefined;
    let passed = runVerdict(
      nodes.map((n) => n.success),
      quorum,
    );
    const failing = nodes.filter((n) => !n.success);
    if (!passed && failing.length === 1 && config.confirm_failures !== false && opts.nodes) {
      // One node's word is not enough: a second node, not in this run, runs the probe at once; the run
      // fails only if it fails too. No other node online: the failure stands as it is.
      try {
        const [other] = pickLocations(await opts.nodes.online(), {
          count: 1,
          type: m.type,
          filter: config.locations as LocationFilter | undefined,
          exclude: nodes.map((n) => n.node_id),
        });
        if (other) {
          stats.confirmations++;
          const second = outcomes(
            await probes.execute({ ...plan, nodeIds: [other] }, { count: 1, jobId: `${jobId}.c` }),
          );
          nodes.push(...second);
          if (second.some((n) => n.success) && !second.some((n) => !n.success)) {
            passed = true;
            stats.unconfirmed++;
          }
        }
      } catch (err) {
        ctx.log.warn({ err, monitor_id: m.id }, "monitor failure not confirmed from a second node");
      }
    }
    const thresholds: Thresholds = {
      failure:
        typeof config.failure_threshold === "number" ? config.failure_threshold : DEFAULT_THRESHOLDS.failure,
      recovery:
        typeof config.recovery_threshold === "number"
          ? config.recovery_threshold
          : DEFAULT_THRESHOLDS.recovery,
    };
    writer.add({
      monitorId: m.id,
      seq: String(m.seq),
      slot,
      passed,
      thresholds,
      nodes,
    });
    stats.finished++;
  };

  const claim = async (): Promise<number> => {
    const room = Math.min(opts.batch, maxInFlight - inFlight.size);
    if (room <= 0) return 0;
    const { rows } = await sql<Claimed>`
      with due as (
        select id, next_run_at from monitors
        where status = 'active' and next_run_at <= now()
        order by next_run_at
        limit ${room}
        for update skip locked
      )
      update monitors m set next_run_at = due.next_run_at + make_interval(
        secs => m.interval_s * (floor(extract(epoch from (now() - due.next_run_at)) / m.interval_s) + 1)
      )
      from due where m.id = due.id
      returning m.id, m.seq, m.type, m.target, m.config, m.interval_s, due.next_run_at as slot`.execute(
      ctx.db,
    );
    stats.claimed += rows.length;
    for (const m of rows) {
      const p = runOne(m).finally(() => {
        inFlight.delete(p);
        stats.inFlight = inFlight.size;
      });
      inFlight.add(p);
    }
    stats.inFlight = inFlight.size;
    return rows.length;
  };

  const tick = (): Promise<number> => {
    ticking = (async () => {
      try {
        return await claim();
      } catch (err) {
        logRoundFailure(ctx.log, err, "monitor claim failed; trying again");
        return 0;
      }
    })();
    return ticking;
  };

  /** How long until the earliest active monitor is due (ms, from the database's clock); null: none. */
  const untilDue = async (): Promise<number | null> => {
    const { rows } = await sql<{ ms: number | string | null }>`
      select extract(epoch from (min(next_run_at) - now())) * 1000 as ms
      from monitors where status = 'active'`.execute(ctx.db);
    const ms = rows[0]?.ms;
    return ms === null || ms === undefined ? null : Number(ms);
  };

  /** Set by `wake` during a claim: the claim may have missed what woke it, so the next wait is a tick. */
  let woken = false;
  /** The last `untilDue` query (`stop` waits for it, as for a claim). */
  let asking: Promise<number | null> | undefined;
  const wait = async (took: number): Promise<number> => {
    // A full batch: more are due now (catching up).
    if (took >= opts.batch) return 0;
    if (opts.idleMaxMs === undefined || took > 0) return opts.tickMs;
    try {
      asking = untilDue();
      const due = await asking;
      if (woken) return opts.tickMs;
      return Math.min(Math.max(due ?? opts.idleMaxMs, opts.tickMs), opts.idleMaxMs);
    } catch {
      // The claim reports the database's trouble; keep to the tick meanwhile.
      return opts.tickMs;
    }
  };

  /** True from the start of a claim until its wait is set; `timer` is set only while waiting. */
  let claiming = false;
  const loop = async () => {
    timer = undefined;
    if (stopped) return;
    claiming = true;
    woken = false;
    const took = await tick();
    const ms = stopped ? 0 : await wait(took);
    claiming = false;
    if (stopped) return;
    timer = setTimeout(() => void loop(), ms);
    timer.unref();
  };
  void loop();

  return {
    stats,
    tick,
    wake() {
      if (stopped) return;
      // During a claim: it may have read before the change, so wait only a tick after it.
      if (claiming) woken = true;
      else if (timer !== undefined) {
        clearTimeout(timer);
        timer = setTimeout(() => void loop(), 0);
        timer.unref();
      }
    },
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await ticking;
      await asking?.catch(() => {});
      await Promise.allSettled([...inFlight]);
      await writer.flush();
    },
  };
}
