import { notify } from "../../db/notify.js";
import { lockAccount, ownedRow } from "../../db/owned.js";
import type { MonitorType } from "../../db/tables/monitors.js";
import { ApiError, fieldError, notFound, validationError } from "../../http/errors.js";
import { newId } from "../../lib/ids.js";
import { type PlanLimits, planOf } from "../../lib/plans.js";
import { dispatchTimeoutMs, type ProbesService } from "../probes/index.js";
import { configKeys, type MonitorConfig, monitorConfigSchema, planMonitorProbe } from "./config.js";
import type { MonitorsContext } from "./context.js";
import * as repo from "./repo.js";
import { MONITORS_CHANNEL } from "./scheduler.js";
import { slotAtOrAfter } from "./slots.js";

export type Monitor = repo.MonitorRow;

/** Who acts: the account and its plan (a `Principal` is one). */
export interface MonitorOwner {
  userId: string;
  plan: string;
}

/**
 * Where a field of the form-neutral input sits in the caller's request, for error details: `name`,
 * `target`, `interval` and `config.<key>` (nested keys included). The default is Form A's body.
 */
export type FieldPaths = (field: string) => string;

export const formAPaths: FieldPaths = (field) => `body.${field === "interval" ? "interval_s" : field}`;

export interface NewMonitor {
  name: string;
  type: MonitorType;
  /** As Form A names it: the URL (http), a host (ping, traceroute), `host:port` (tcp), the domain (dns). */
  target: string;
  config?: Record<string, unknown> | undefined;
  /** Omitted: 60 s, or the plan's minimum when that is longer. */
  intervalS?: number | undefined;
  paths?: FieldPaths;
}

export interface MonitorPatch {
  name?: string | undefined;
  intervalS?: number | undefined;
  /**
   * Merged into the stored config key by key; `null` returns a key to its default. Naming `nodes` drops a
   * stored `node_count` and the other way round.
   */
  config?: Record<string, unknown> | undefined;
  paths?: FieldPaths;
}

/** The monitor verbs (CRUD); the routes of both forms, MCP and the dashboard call them. */
export interface MonitorCrudService {
  create(owner: MonitorOwner, input: NewMonitor): Promise<Monitor>;
  /** A page of the owner's monitors, newest first, and how many there are. */
  list(
    owner: MonitorOwner,
    page: { page: number; limit: number },
  ): Promise<{ items: Monitor[]; total: number }>;
  get(owner: MonitorOwner, id: string): Promise<Monitor>;
  update(owner: MonitorOwner, id: string, patch: MonitorPatch): Promise<Monitor>;
  remove(owner: MonitorOwner, id: string): Promise<void>;
  /** Idempotent: pausing a paused monitor changes nothing. */
  pause(owner: MonitorOwner, id: string): Promise<Monitor>;
  /** Idempotent: resuming an active monitor changes nothing (its next run stays where it was). */
  resume(owner: MonitorOwner, id: string): Promise<Monitor>;
}

/** The interval of a monitor created without one, unless the plan's minimum is longer. */
export const DEFAULT_INTERVAL_S = 60;
export const MAX_INTERVAL_S = 86_400;

/** The same error with its detail paths (and the message's leading path) moved by `map`. */
function remapPaths(err: unknown, map: (path: string) => string): unknown {
  if (!(err instanceof ApiError) || !Array.isArray(err.details)) return err;
  const details = (err.details as { path?: unknown }[]).map((d) =>
    typeof d.path === "string" ? { ...d, path: map(d.path) } : d,
  );
  const first = (err.details as { path?: unknown }[])[0]?.path;
  const message =
    typeof first === "string" && err.message.startsWith(`${first}:`)
      ? `${map(first)}${err.message.slice(first.length)}`
      : err.message;
  return new ApiError(err.code, message, details, err.headers);
}

/** The probes service's paths (`$.target`, `$.params.x`, `$.node_ids`; `body.*` from host:port splitting). */
function probePathsTo(paths: FieldPaths) {
  return (p: string): string => {
    const m = /^(?:\$|body)\.(target|params|node_ids)(.*)$/.exec(p);
    if (!m) return p;
    if (m[1] === "target") return paths("target");
    if (m[1] === "node_ids") return paths(`config.nodes${m[2]}`);
    return paths(`config${m[2]}`);
  };
}

function parseConfig(type: MonitorType, raw: Record<string, unknown>, paths: FieldPaths): MonitorConfig {
  const parsed = monitorConfigSchema(type).safeParse(raw);
  if (parsed.success) return parsed.data;
  throw remapPaths(validationError(parsed.error, "config"), paths);
}

export function createMonitorCrud(
  ctx: MonitorsContext,
  probes: Pick<ProbesService, "plan">,
): MonitorCrudService {
  /**
   * Checks target and config with the probes service (the API probes' validation and target guard) and
   * returns what is stored: the normalised target (a TCP target always carries its port, so `port` leaves
   * the config) and the config.
   */
  function checked(type: MonitorType, target: string, config: MonitorConfig, paths: FieldPaths) {
    let plan: ReturnType<typeof planMonitorProbe>;
    try {
      plan = planMonitorProbe(probes, { type, target, config }, "$");
    } catch (err) {
      throw remapPaths(err, probePathsTo(paths));
    }
    const stored: Record<string, unknown> = { ...config };
    if (type === "tcp") delete stored.port;
    // How long a run may take (the stale sweep waits for it when it is longer than the interval).
    const runBudgetS = Math.ceil(dispatchTimeoutMs(plan.spec) / 1000);
    return { target: plan.target, config: stored, runBudgetS };
  }

  function checkInterval(limits: PlanLimits, plan: string, intervalS: number, paths: FieldPaths): void {
    const min = limits.min_monitor_interval_s;
    if (intervalS >= min) return;
    const path = paths("interval");
    const message = `must be at least ${min} seconds on the ${plan} plan`;
    throw fieldError(path, message, "validation_error", { minimum: min });
  }

  /** The stored config with a patch merged in (see `MonitorPatch.config`), unknown keys refused. */
  function merged(row: Monitor, patch: Record<string, unknown>, paths: FieldPaths): Record<string, unknown> {
    const known = new Set(configKeys(row.type));
    const unknown = Object.keys(patch).filter((k) => !known.has(k));
    if (unknown.length > 0) {
      const details = unknown.map((k) => ({ path: paths(`config.${k}`), message: "unknown field" }));
      throw new ApiError("unknown_field", `${details[0]!.path}: unknown field`, details);
    }
    const out: Record<string, unknown> = { ...row.config };
    for (const [k, v] of Object.entries(patch)) {
      if (v === null) delete out[k];
      else out[k] = v;
    }
    if (patch.nodes != null && !("node_count" in patch)) delete out.node_count;
    if (patch.node_count != null && !("nodes" in patch)) delete out.nodes;
    if (patch.nodes != null && !("locations" in patch)) delete out.locations;
    if (patch.locations != null && !("nodes" in patch)) delete out.nodes;
    return out;
  }

  async function locked<T>(
    owner: MonitorOwner,
    id: string,
    fn: (row: Monitor, tx: repo.Executor) => Promise<T>,
  ) {
    return ctx.db.transaction().execute(async (tx) => {
      const row = await ownedRow(tx, "monitors", owner.userId, id, { forUpdate: true });
      if (!row) throw notFound("monitor");
      return fn(row, tx);
    });
  }

  return {
    async create(owner, input) {
      const paths = input.paths ?? formAPaths;
      const config = parseConfig(input.type, input.config ?? {}, paths);
      const stored = checked(input.type, input.target, config, paths);
      const now = ctx.now();
      const id = newId("mon", now);
      // Count and insert under a lock on the account's row, else concurrent creates all see a count under
      // the limit and all insert (as API keys do).
      const row = await ctx.db.transaction().execute(async (tx) => {
        const account = await lockAccount(tx, owner.userId);
        if (!account) throw notFound("account");
        const plan = planOf(account.plan);
        const limits = ctx.plans[plan];
        const intervalS =
          input.intervalS ??
          Math.min(Math.max(DEFAULT_INTERVAL_S, limits.min_monitor_interval_s), MAX_INTERVAL_S);
        checkInterval(limits, plan, intervalS, paths);
        const limit = limits.monitors;
        if (limit !== null && (await repo.countMonitors(tx, owner.userId)) >= limit) {
          throw new ApiError(
            "conflict",
            `the ${plan} plan allows ${limit} monitors: delete one first, or move to a larger plan`,
            { limit, plan },
          );
        }
        // Heard at commit by every scheduler, which may be waiting longer than until this one is due.
        await notify(tx, MONITORS_CHANNEL, id);
        return repo.insertMonitor(tx, {
          id,
          ownerId: owner.userId,
          name: input.name,
          type: input.type,
          target: stored.target,
          config: stored.config,
          intervalS,
          runBudgetS: stored.runBudgetS,
          nextRunAt: new Date(slotAtOrAfter(id, intervalS, now)),
          createdAt: new Date(now),
        });
      });
      ctx.log.info({ user_id: owner.userId, monitor_id: row.id, type: row.type }, "monitor created");
      return row;
    },

    async list(owner, { page, limit }) {
      const [items, total] = await Promise.all([
        repo.listMonitors(ctx.db, owner.userId, { limit, offset: (page - 1) * limit }),
        repo.countMonitors(ctx.db, owner.userId),
      ]);
      return { items, total };
    },

    async get(owner, id) {
      const row = await ownedRow(ctx.db, "monitors", owner.userId, id);
      if (!row) throw notFound("monitor");
      return row;
    },

    update(owner, id, patch) {
      const paths = patch.paths ?? formAPaths;
      return locked(owner, id, async (row, tx) => {
        const now = ctx.now();
        const changes: repo.MonitorChanges = {};
        if (patch.name !== undefined && patch.name !== row.name) changes.name = patch.name;
        if (patch.intervalS !== undefined) {
          const plan = planOf(owner.plan);
          checkInterval(ctx.plans[plan], plan, patch.intervalS, paths);
          if (patch.intervalS !== row.interval_s) {
            changes.intervalS = patch.intervalS;
            changes.nextRunAt = new Date(slotAtOrAfter(row.id, patch.intervalS, now));
          }
        }
        if (patch.config !== undefined) {
          const config = parseConfig(row.type, merged(row, patch.config, paths), paths);
          const stored = checked(row.type, row.target, config, paths);
          changes.config = stored.config;
          if (stored.runBudgetS !== row.run_budget_s) changes.runBudgetS = stored.runBudgetS;
        }
        if (Object.keys(changes).length === 0) return row;
        if (changes.nextRunAt !== undefined) await notify(tx, MONITORS_CHANNEL, id);
        return (await repo.updateMonitor(tx, owner.userId, id, changes, new Date(now))) ?? row;
      });
    },

    async remove(owner, id) {
      if (!(await repo.deleteMonitor(ctx.db, owner.userId, id))) throw notFound("monitor");
      ctx.log.info({ user_id: owner.userId, monitor_id: id }, "monitor deleted");
    },

    pause(owner, id) {
      return locked(owner, id, async (row, tx) => {
        if (row.status === "paused") return row;
        const changes = { status: "paused" as const, pausedReason: null };
        return (await repo.updateMonitor(tx, owner.userId, id, changes, new Date(ctx.now()))) ?? row;
      });
    },

    resume(owner, id) {
      return locked(owner, id, async (row, tx) => {
        if (row.status === "active") return row;
        const now = ctx.now();
        // The first slot from now: runs missed while paused are not made up.
        const changes = {
          status: "active" as const,
          pausedReason: null,
          nextRunAt: new Date(slotAtOrAfter(id, row.interval_s, now)),
        };
        await notify(tx, MONITORS_CHANNEL, id);
        return (await repo.updateMonitor(tx, owner.userId, id, changes, new Date(now))) ?? row;
      });
    },
  };
}
