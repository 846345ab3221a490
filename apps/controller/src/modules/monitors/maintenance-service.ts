import type { Kysely } from "kysely";
import type { Database } from "../../db/schema.js";
import { ApiError, fieldError, notFound } from "../../http/errors.js";
import { newId } from "../../lib/ids.js";
import * as repo from "./maintenance-repo.js";
import { isTimeZone, occurrences, parseRule, parseStartLocal, RecurrenceError } from "./recurrence.js";

/** Windows per account. */
export const MAX_WINDOWS = 100;
/** Monitors named by one window. */
export const MAX_WINDOW_MONITORS = 100;
/** A one-off window's longest span, and a recurring window's longest occurrence (minutes). */
export const MAX_ONCE_DAYS = 366;
export const MAX_DURATION_MINUTES = 10_080;

export interface RecurrenceInput {
  rrule: string;
  start_local: string;
  time_zone: string;
  duration_minutes: number;
}

export interface WindowInput {
  title: string;
  scope: "monitor" | "all";
  monitorIds: string[];
  startsAt: Date | null;
  endsAt: Date | null;
  recurrence: RecurrenceInput | null;
}

export type WindowPatch = Partial<WindowInput>;

export interface MaintenanceWindow extends WindowInput {
  id: string;
  created_at: Date;
  updated_at: Date;
  /** Whether a window is open now. */
  active: boolean;
  /** The open occurrence and the next ones (up to 5, within about a year). */
  upcoming: { starts_at: Date; ends_at: Date }[];
}

export interface MaintenanceService {
  create(owner: { userId: string }, input: WindowInput): Promise<MaintenanceWindow>;
  list(
    owner: { userId: string },
    page: { page: number; limit: number },
  ): Promise<{ items: MaintenanceWindow[]; total: number }>;
  get(owner: { userId: string }, id: string): Promise<MaintenanceWindow>;
  update(owner: { userId: string }, id: string, patch: WindowPatch): Promise<MaintenanceWindow>;
  remove(owner: { userId: string }, id: string): Promise<void>;
  /**
   * The alert path's check: for each state change (its monitor, owner and slot), the window that covers it,
   * if any. Changes covered by none are absent from the answer.
   */
  covering(
    changes: { key: string; monitorId: string; ownerId: string; at: Date }[],
    /** The caller's transaction, when it is in one. */
    executor?: Kysely<Database>,
  ): Promise<Map<string, string>>;
  /** The intervals `[start, end)` of the owner's windows covering the monitor within `[from, to)`, merged. */
  intervals(ownerId: string, monitorId: string, from: number, to: number): Promise<[number, number][]>;
}

/** The window's occurrences overlapping `[from, to)`. */
export function windowIntervals(
  w: repo.WindowRow,
  from: number,
  to: number,
  limit = 1000,
): [number, number][] {
  if (w.starts_at && w.ends_at) {
    const s = new Date(w.starts_at).getTime();
    const e = new Date(w.ends_at).getTime();
    return s < to && e > from ? [[s, e]] : [];
  }
  if (!w.rrule || !w.start_local || !w.time_zone || !w.duration_minutes) return [];
  try {
    return occurrences(
      {
        rule: parseRule(w.rrule),
        startLocal: w.start_local,
        timeZone: w.time_zone,
        durationMinutes: w.duration_minutes,
      },
      from,
      to,
      limit,
    );
  } catch {
    // A stored rule the runtime can no longer read (a zone dropped from its tz data) covers nothing.
    return [];
  }
}

const covers = (w: repo.WindowRow, monitorId: string) => w.all_monitors || w.monitor_ids.includes(monitorId);

function merge(intervals: [number, number][]): [number, number][] {
  const sorted = [...intervals].sort((a, b) => a[0] - b[0]);
  const out: [number, number][] = [];
  for (const [s, e] of sorted) {
    const last = out.at(-1);
    if (last && s <= last[1]) last[1] = Math.max(last[1], e);
    else out.push([s, e]);
  }
  return out;
}

export function createMaintenance(db: Kysely<Database>, now: () => number): MaintenanceService {
  const view = (w: repo.WindowRow): MaintenanceWindow => {
    const t = now();
    const upcoming = windowIntervals(w, t, t + 400 * 86_400_000, 5);
    return {
      id: w.id,
      title: w.title,
      scope: w.all_monitors ? "all" : "monitor",
      monitorIds: w.monitor_ids,
      startsAt: w.starts_at ? new Date(w.starts_at) : null,
      endsAt: w.ends_at ? new Date(w.ends_at) : null,
      recurrence:
        w.rrule && w.start_local && w.time_zone && w.duration_minutes
          ? {
              rrule: w.rrule,
              start_local: w.start_local,
              time_zone: w.time_zone,
              duration_minutes: w.duration_minutes,
            }
          : null,
      created_at: new Date(w.created_at),
      updated_at: new Date(w.updated_at),
      active: upcoming.some(([s, e]) => s <= t && t < e),
      upcoming: upcoming.map(([s, e]) => ({ starts_at: new Date(s), ends_at: new Date(e) })),
    };
  };

  /** Checks an input whole (as created or after a patch is merged); the row to store. */
  async function check(userId: string, input: WindowInput) {
    const monitorIds = [...new Set(input.monitorIds)];
    if (input.scope === "all" && monitorIds.length > 0)
      throw fieldError("body.monitor_ids", 'must be left out with scope "all"');
    if (input.scope === "monitor" && monitorIds.length === 0)
      throw fieldError("body.monitor_ids", 'name at least one monitor, or use scope "all"');
    if (monitorIds.length > MAX_WINDOW_MONITORS)
      throw fieldError("body.monitor_ids", `at most ${MAX_WINDOW_MONITORS} monitors`);
    const owned = await repo.ownedMonitorIds(db, userId, monitorIds);
    const missing = monitorIds.findIndex((id) => !owned.has(id));
    if (missing >= 0) throw fieldError(`body.monitor_ids.${missing}`, "monitor not found", "not_found");
    const once = input.startsAt !== null || input.endsAt !== null;
    if (once === (input.recurrence !== null))
      throw fieldError("body", "give either starts_at and ends_at (one-off) or recurrence, not both");
    if (once) {
      if (!input.startsAt) throw fieldError("body.starts_at", "required with ends_at");
      if (!input.endsAt) throw fieldError("body.ends_at", "required with starts_at");
      const span = input.endsAt.getTime() - input.startsAt.getTime();
      if (span <= 0) throw fieldError("body.ends_at", "must be after starts_at");
      if (span > MAX_ONCE_DAYS * 86_400_000)
        throw fieldError("body.ends_at", `at most ${MAX_ONCE_DAYS} days after starts_at`);
    } else if (input.recurrence) {
      const r = input.recurrence;
      try {
        parseRule(r.rrule);
      } catch (err) {
        if (err instanceof RecurrenceError) throw fieldError("body.recurrence.rrule", err.message);
        throw err;
      }
      try {
        parseStartLocal(r.start_local);
      } catch (err) {
        if (err instanceof RecurrenceError) throw fieldError("body.recurrence.start_local", err.message);
        throw err;
      }
      if (!isTimeZone(r.time_zone))
        throw fieldError("body.recurrence.time_zone", "not an IANA time zone (e.g. Europe/Berlin)");
    }
    return {
      title: input.title,
      all_monitors: input.scope === "all",
      monitor_ids: monitorIds,
      starts_at: input.startsAt,
      ends_at: input.endsAt,
      rrule:
        input.recurrence?.rrule
          .trim()
          .replace(/^RRULE:/i, "")
          .toUpperCase() ?? null,
      start_local: input.recurrence?.start_local ?? null,
      time_zone: input.recurrence?.time_zone ?? null,
      duration_minutes: input.recurrence?.duration_minutes ?? null,
    };
  }

  async function owned(userId: string, id: string) {
    const w = await repo.findWindow(db, id, userId);
    if (!w) throw notFound("maintenance window");
    return w;
  }

  return {
    async create(owner, input) {
      const row = await check(owner.userId, input);
      if ((await repo.countWindows(db, owner.userId)) >= MAX_WINDOWS)
        throw new ApiError(
          "conflict",
          `at most ${MAX_WINDOWS} maintenance windows per account: delete one first`,
          {
            limit: MAX_WINDOWS,
          },
        );
      return view(await repo.insertWindow(db, { id: newId("mnt"), owner_id: owner.userId, ...row }));
    },
    async list(owner, page) {
      const { items, total } = await repo.listWindows(db, owner.userId, page.page, page.limit);
      return { items: items.map(view), total };
    },
    async get(owner, id) {
      return view(await owned(owner.userId, id));
    },
    async update(owner, id, patch) {
      const cur = view(await owned(owner.userId, id));
      // Switching kind: the patch's timing replaces the other kind's.
      const timing =
        patch.recurrence !== undefined && patch.recurrence !== null
          ? { startsAt: null, endsAt: null, recurrence: patch.recurrence }
          : patch.startsAt !== undefined || patch.endsAt !== undefined
            ? {
                startsAt: patch.startsAt ?? cur.startsAt,
                endsAt: patch.endsAt ?? cur.endsAt,
                recurrence: null,
              }
            : {};
      const scope = patch.scope ?? cur.scope;
      const merged: WindowInput = {
        title: patch.title ?? cur.title,
        scope,
        monitorIds: patch.monitorIds ?? (scope === "all" ? [] : cur.monitorIds),
        startsAt: cur.startsAt,
        endsAt: cur.endsAt,
        recurrence: cur.recurrence,
        ...timing,
      };
      const row = await check(owner.userId, merged);
      const updated = await repo.updateWindow(db, id, owner.userId, row);
      if (!updated) throw notFound("maintenance window");
      return view(updated);
    },
    async remove(owner, id) {
      if (!(await repo.deleteWindow(db, id, owner.userId))) throw notFound("maintenance window");
    },
    async covering(changes, executor = db) {
      const out = new Map<string, string>();
      const windows = await repo.windowsOfOwners(executor, [...new Set(changes.map((c) => c.ownerId))]);
      if (windows.length === 0) return out;
      for (const c of changes) {
        const t = c.at.getTime();
        const w = windows.find(
          (w) =>
            w.owner_id === c.ownerId && covers(w, c.monitorId) && windowIntervals(w, t, t + 1, 1).length > 0,
        );
        if (w) out.set(c.key, w.id);
      }
      return out;
    },
    async intervals(ownerId, monitorId, from, to) {
      const windows = (await repo.windowsOfOwners(db, [ownerId])).filter((w) => covers(w, monitorId));
      const all = windows.flatMap((w) => windowIntervals(w, from, to));
      return merge(all.map(([s, e]) => [Math.max(s, from), Math.min(e, to)] as [number, number]));
    },
  };
}
