import type { Kysely } from "kysely";
import type { Database } from "../../db/schema.js";
import type { MonitorStatusReader, MonitorSummary } from "../monitors/index.js";
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
export interface Snapshot {
  page: repo.PageRow;
  status: ComponentStatus;
  components: ComponentView[];
  /** Open incidents and those resolved in the last 14 days, newest first. */
  incidents: repo.IncidentWithUpdates[];
  /** Maintenance under way or to come, soonest first. */
  maintenance: repo.MaintenanceRow[];
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

export async function buildSnapshot(
  db: Kysely<Database>,
  monitors: MonitorStatusReader,
  page: repo.PageRow,
  now: number,
): Promise<Snapshot> {
  const ids = [...new Set(page.components.flatMap((c) => c.monitor_ids))];
  const [summaries, totals, incidents, maintenance] = await Promise.all([
    monitors.summaries(page.owner_id, ids),
    monitors.dailyTotals(page.owner_id, ids, BAR_DAYS, now),
    repo.listIncidents(db, page.id, { page: 1, limit: 50 }),
    repo.currentMaintenance(db, page.id, new Date(now)),
  ]);
  const byId = new Map(summaries.map((m) => [m.id, m]));
  const inMaintenance = maintenance.some((m) => new Date(m.starts_at).getTime() <= now);
  const today = Math.floor(now / DAY_MS);
  const components = page.components.map((c): ComponentView => {
    const perDay = new Map<number, { runs: number; failures: number }>();
    for (const id of c.monitor_ids) {
      for (const t of totals.get(id) ?? []) {
        const s = perDay.get(t.day) ?? { runs: 0, failures: 0 };
        s.runs += t.runs;
        s.failures += t.failures;
        perDay.set(t.day, s);
      }
    }
    let runs = 0;
    let failures = 0;
    const days: DayBar[] = [];
    for (let day = today - BAR_DAYS + 1; day <= today; day++) {
      const s = perDay.get(day) ?? { runs: 0, failures: 0 };
      runs += s.runs;
      failures += s.failures;
      days.push({
        date: new Date(day * DAY_MS).toISOString().slice(0, 10),
        runs: s.runs,
        failures: s.failures,
        uptime_percent: pct(s.runs, s.failures),
      });
    }
    const members = c.monitor_ids.flatMap((id) => byId.get(id) ?? []);
    return {
      name: c.name,
      status: statusOf(members, inMaintenance),
      uptime_90d_percent: pct(runs, failures),
      days,
    };
  });
  const worst = components.reduce<ComponentStatus>(
    (w, c) => (rank[c.status] > rank[w] ? c.status : w),
    components.length === 0 ? "unknown" : "operational",
  );
  return {
    page,
    status: inMaintenance && rank[worst] < rank.maintenance ? "maintenance" : worst,
    components,
    incidents: incidents.items.filter(
      (i) => i.resolved_at === null || now - new Date(i.resolved_at).getTime() < RECENT_MS,
    ),
    maintenance,
    generatedAt: new Date(now),
  };
}
