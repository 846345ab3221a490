import type { Kysely } from "kysely";
import type { Database } from "../../db/schema.js";
import type { DayTotals, MonitorStatusReader, MonitorSummary } from "../monitors/index.js";
import * as repo from "./repo.js";

export const BAR_DAYS = 90;
/** Resolved incidents stay on the page this long. */
const RECENT_MS = 14 * 86_400_000;
const DAY_MS = 86_400_000;

export type ComponentStatus = "operational" | "degraded" | "major_outage" | "maintenance" | "unknown";

export interface DayBar {
  date: string;
  runs: number;
  failures: number;
  uptime_percent: number | null;
}

export interface ComponentView {
  name: string;
  status: ComponentStatus;
  uptime_90d_percent: number | null;
  days: DayBar[];
}

/** Everything a public rendering of a page shows, read at `generatedAt`. */
/** A maintenance entry as the page shows it: the page's own, or a monitors' maintenance window occurrence. */
export interface MaintenanceEntry {
  id: string;
  title: string;
  description: string;
  starts_at: Date | string;
  ends_at: Date | string;
  /** The monitors it covers; null: the whole page (the page's own entries). */
  monitor_ids: string[] | null;
}

/**
 * The monitors' maintenance windows (modules/monitors, issue #29 item 4), as status pages read them: the
 * owner's windows with their open and next occurrences. Structural, so the module works without them.
 */
export interface WindowSource {
  list(
    owner: { userId: string },
    page: { page: number; limit: number },
  ): Promise<{
    items: {
      id: string;
      title: string;
      scope: "monitor" | "all";
      monitorIds: string[];
      upcoming: { starts_at: Date; ends_at: Date }[];
    }[];
  }>;
}

/** Window occurrences starting within this time are shown. */
const WINDOW_HORIZON_MS = 30 * 86_400_000;

async function windowEntries(
  source: WindowSource | undefined,
  page: repo.PageRow,
  ids: string[],
  now: number,
): Promise<MaintenanceEntry[]> {
  if (!source || ids.length === 0) return [];
  const { items } = await source.list({ userId: page.owner_id }, { page: 1, limit: 100 });
  const mine = new Set(ids);
  return items.flatMap((w) => {
    const covered = w.scope === "all" ? ids : w.monitorIds.filter((m) => mine.has(m));
    if (covered.length === 0) return [];
    return w.upcoming
      .filter((o) => new Date(o.starts_at).getTime() < now + WINDOW_HORIZON_MS)
      .map((o) => ({
        id: `${w.id}@${new Date(o.starts_at).toISOString()}`,
        title: w.title,
        description: "",
        starts_at: o.starts_at,
        ends_at: o.ends_at,
        monitor_ids: covered,
      }));
  });
}

/**
 * The page's monitors (of `ids`) under maintenance at `now`: those a current monitors' window covers, and
 * all of them while one of the page's own maintenance entries is on.
 */
export async function monitorsInMaintenance(
  db: Kysely<Database>,
  page: repo.PageRow,
  ids: string[],
  now: number,
  windows?: WindowSource,
): Promise<Set<string>> {
  const [own, fromWindows] = await Promise.all([
    repo.currentMaintenance(db, page.id, new Date(now)),
    windowEntries(windows, page, ids, now),
  ]);
  const on = (m: { starts_at: Date | string; ends_at: Date | string }) =>
    new Date(m.starts_at).getTime() <= now && new Date(m.ends_at).getTime() > now;
  if (own.some(on)) return new Set(ids);
  return new Set(fromWindows.filter(on).flatMap((m) => m.monitor_ids ?? []));
}

export interface Snapshot {
  page: repo.PageRow;
  status: ComponentStatus;
  components: ComponentView[];
  /** Open incidents and those resolved in the last 14 days, newest first. */
  incidents: repo.IncidentWithUpdates[];
  /** Maintenance under way or to come, soonest first. */
  maintenance: MaintenanceEntry[];
  generatedAt: Date;
}

const rank: Record<ComponentStatus, number> = {
  operational: 0,
  unknown: 1,
  maintenance: 2,
  degraded: 3,
  major_outage: 4,
};
const pct = (runs: number, failures: number) =>
  runs === 0 ? null : Math.round(((runs - failures) / runs) * 100_000) / 1000;

function statusOf(monitors: MonitorSummary[], inMaintenance: boolean): ComponentStatus {
  const active = monitors.filter((m) => m.status === "active");
  const down = active.filter((m) => m.state === "down").length;
  const up = active.filter((m) => m.state === "up").length;
  if (inMaintenance && (down > 0 || up === 0)) return "maintenance";
  if (down > 0) return down === active.length ? "major_outage" : "degraded";
  return up > 0 ? "operational" : "unknown";
}

/**
 * A component's 90 days (its monitors' runs summed per day, `first` being the first day's number since
 * 1970-01-01) and its 90-day uptime: two arrays per component, no map or object per day but the bars.
 */
function componentDays(
  monitorIds: string[],
  totals: Map<string, DayTotals[]>,
  first: number,
  dates: string[],
): Pick<ComponentView, "uptime_90d_percent" | "days"> {
  const runs = new Array<number>(BAR_DAYS).fill(0);
  const failures = new Array<number>(BAR_DAYS).fill(0);
  for (const id of monitorIds) {
    for (const t of totals.get(id) ?? []) {
      const i = t.day - first;
      if (i < 0 || i >= BAR_DAYS) continue;
      runs[i]! += t.runs;
      failures[i]! += t.failures;
    }
  }
  let allRuns = 0;
  let allFailures = 0;
  const days = new Array<DayBar>(BAR_DAYS);
  for (let i = 0; i < BAR_DAYS; i++) {
    const r = runs[i]!;
    const f = failures[i]!;
    allRuns += r;
    allFailures += f;
    days[i] = { date: dates[i]!, runs: r, failures: f, uptime_percent: pct(r, f) };
  }
  return { uptime_90d_percent: pct(allRuns, allFailures), days };
}

export async function buildSnapshot(
  db: Kysely<Database>,
  monitors: MonitorStatusReader,
  page: repo.PageRow,
  now: number,
  windows?: WindowSource,
): Promise<Snapshot> {
  const ids = [...new Set(page.components.flatMap((c) => c.monitor_ids))];
  const [{ summaries, totals }, incidents, own, fromWindows] = await Promise.all([
    monitors.overview(page.owner_id, ids, BAR_DAYS, now),
    repo.newestIncidents(db, page.id, 50),
    repo.currentMaintenance(db, page.id, new Date(now)),
    windowEntries(windows, page, ids, now),
  ]);
  const maintenance: MaintenanceEntry[] = [
    ...own.map((m) => ({ ...m, monitor_ids: null })),
    ...fromWindows,
  ].sort((a, b) => new Date(a.starts_at).getTime() - new Date(b.starts_at).getTime());
  const active = maintenance.filter((m) => new Date(m.starts_at).getTime() <= now);
  const inMaintenanceOf = (monitorIds: string[]) =>
    active.some((m) => m.monitor_ids === null || m.monitor_ids.some((id) => monitorIds.includes(id)));
  const byId = new Map(summaries.map((m) => [m.id, m]));
  const first = Math.floor(now / DAY_MS) - BAR_DAYS + 1;
  // The 90 dates once per snapshot, not once per component and day.
  const dates = Array.from({ length: BAR_DAYS }, (_, i) =>
    new Date((first + i) * DAY_MS).toISOString().slice(0, 10),
  );
  const components = page.components.map(
    (c): ComponentView => ({
      name: c.name,
      status: statusOf(
        c.monitor_ids.flatMap((id) => byId.get(id) ?? []),
        inMaintenanceOf(c.monitor_ids),
      ),
      ...componentDays(c.monitor_ids, totals, first, dates),
    }),
  );
  const worst = components.reduce<ComponentStatus>(
    (w, c) => (rank[c.status] > rank[w] ? c.status : w),
    components.length === 0 ? "unknown" : "operational",
  );
  return {
    page,
    status:
      active.some((m) => m.monitor_ids === null) && rank[worst] < rank.maintenance ? "maintenance" : worst,
    components,
    incidents: incidents.filter(
      (i) => i.resolved_at === null || now - new Date(i.resolved_at).getTime() < RECENT_MS,
    ),
    maintenance,
    generatedAt: new Date(now),
  };
}
