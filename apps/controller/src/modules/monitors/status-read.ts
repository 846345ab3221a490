import { type Kysely, sql } from "kysely";
import type { Database } from "../../db/schema.js";
import type { MonitorState } from "../../db/tables/monitors.js";
import { readProgress } from "./results-repo.js";

const DAY_MS = 86_400_000;

/** A monitor as a status page shows it: its name and state, nothing of its target or settings. */
export interface MonitorSummary {
  id: string;
  name: string;
  state: MonitorState;
  status: "active" | "paused";
}

/** One UTC day of one monitor: runs and failed runs (majority rule); a day without runs is absent. */
export interface DayTotals {
  /** Days since 1970-01-01 (UTC). */
  day: number;
  runs: number;
  failures: number;
}

/** What status pages read of monitors: summaries and daily uptime, by id, for one owner. */
export interface MonitorStatusReader {
  /** The owner's monitors among `ids` (others' and unknown ids are left out). */
  summaries(ownerId: string, ids: readonly string[]): Promise<MonitorSummary[]>;
  /**
   * Per monitor id (the owner's among `ids`), its days from `days - 1` days before today to today (UTC):
   * completed days from the `day` roll-ups, the days the roll-up job has not reached from the `hour`
   * roll-ups, and the newest hours from the raw runs, so a day's bar counts every run once.
   */
  dailyTotals(
    ownerId: string,
    ids: readonly string[],
    days: number,
    now?: number,
  ): Promise<Map<string, DayTotals[]>>;
  /** Both at once (one read of the monitors): what a status page shows. */
  overview(
    ownerId: string,
    ids: readonly string[],
    days: number,
    now?: number,
  ): Promise<{ summaries: MonitorSummary[]; totals: Map<string, DayTotals[]> }>;
}

/** Monitors whose completed days are kept in memory (least recently read dropped first). */
const PAST_CACHE_MONITORS = 20_000;

export function createMonitorStatusReader(db: Kysely<Database>): MonitorStatusReader {
  /**
   * The `day` roll-ups before the day roll-up job's progress, per monitor seq: they change only when that
   * progress moves (or `from`, the window's first day, does), which is part of the key. A status page
   * read then costs the newest day's reads, not 90 days of buckets per monitor.
   */
  /** The roll-up job's progress moves once a minute at most: it is read again after 5 s. */
  let progressMemo: { at: number; value: ReturnType<typeof readProgress> } | undefined;
  const progressOf = (now: number) => {
    if (!progressMemo || Math.abs(now - progressMemo.at) > 5000) {
      const value = readProgress(db);
      value.catch(() => {
        if (progressMemo?.value === value) progressMemo = undefined;
      });
      progressMemo = { at: now, value };
    }
    return progressMemo.value;
  };
  const past = new Map<string, { key: string; rows: { day: number; runs: number; failures: number }[] }>();
  async function owned(ownerId: string, ids: readonly string[]) {
    if (ids.length === 0) return [];
    return db
      .selectFrom("monitors")
      .select(["id", "seq", "name", "state", "status"])
      .where("owner_id", "=", ownerId)
      .where("id", "in", [...ids])
      .execute();
  }

  return {
    async summaries(ownerId, ids) {
      const rows = await owned(ownerId, ids);
      return rows.map((r) => ({ id: r.id, name: r.name, state: r.state, status: r.status }));
    },

    async dailyTotals(ownerId, ids, days, now = Date.now()) {
      return totalsOf(await owned(ownerId, ids), days, now);
    },

    async overview(ownerId, ids, days, now = Date.now()) {
      const rows = await owned(ownerId, ids);
      return {
        summaries: rows.map((r) => ({ id: r.id, name: r.name, state: r.state, status: r.status })),
        totals: await totalsOf(rows, days, now),
      };
    },
  };

  async function totalsOf(
    rows: { id: string; seq: string | number }[],
    days: number,
    now: number,
  ): Promise<Map<string, DayTotals[]>> {
    const out = new Map<string, DayTotals[]>(rows.map((r) => [r.id, []]));
    if (rows.length === 0) return out;
    const idOf = new Map(rows.map((r) => [String(r.seq), r.id]));
    const seqs = rows.map((r) => String(r.seq));
    const from = (Math.floor(now / DAY_MS) - days + 1) * DAY_MS;
    const progress = await progressOf(now);
    const dayDone = Math.max(from, Math.min(progress.day?.getTime() ?? from, now));
    const hourDone = Math.max(dayDone, Math.min(progress.hour?.getTime() ?? dayDone, now));
    const seqList = sql.join(seqs.map((s) => sql`${s}::bigint`));
    const buckets = (period: "hour", a: number, b: number) =>
      sql<{ seq: string | number; day: number; runs: number | string; failures: number | string }>`
        select monitor_seq as seq, floor(extract(epoch from bucket) / 86400)::int as day,
          sum(runs)::int as runs, sum(failures)::int as failures
        from monitor_rollups
        where monitor_seq in (${seqList}) and period = ${period}
          and bucket >= ${new Date(a)} and bucket < ${new Date(b)}
        group by 1, 2`.execute(db);
    const raw = sql<{
      seq: string | number;
      day: number;
      runs: number | string;
      failures: number | string;
    }>`
      with slots as (
        select monitor_seq, slot, 2 * count(*) filter (where success) > count(*) as passed
        from monitor_runs
        where monitor_seq in (${seqList}) and slot >= ${new Date(hourDone)} and slot < ${new Date(now)}
        group by monitor_seq, slot
      )
      select monitor_seq as seq, floor(extract(epoch from slot) / 86400)::int as day,
        count(*)::int as runs, (count(*) filter (where not passed))::int as failures
      from slots group by 1, 2`.execute(db);
    const pastKey = `${from}:${dayDone}`;
    const missing = seqs.filter((s) => past.get(s)?.key !== pastKey);
    if (missing.length > 0 && dayDone > from) {
      const { rows: got } = await sql<{
        seq: string | number;
        day: number;
        runs: number;
        failures: number;
      }>`
        select monitor_seq as seq, floor(extract(epoch from bucket) / 86400)::int as day, runs, failures
        from monitor_rollups
        where monitor_seq in (${sql.join(missing.map((s) => sql`${s}::bigint`))}) and period = 'day'
          and bucket >= ${new Date(from)} and bucket < ${new Date(dayDone)}`.execute(db);
      const bySeq = new Map<string, { day: number; runs: number; failures: number }[]>(
        missing.map((s) => [s, []]),
      );
      for (const r of got)
        bySeq
          .get(String(r.seq))
          ?.push({ day: Number(r.day), runs: Number(r.runs), failures: Number(r.failures) });
      for (const [seq, list] of bySeq) {
        past.delete(seq);
        if (past.size >= PAST_CACHE_MONITORS) {
          const oldest = past.keys().next().value;
          if (oldest !== undefined) past.delete(oldest);
        }
        past.set(seq, { key: pastKey, rows: list });
      }
    }
    const pastRows = {
      rows: seqs.flatMap((seq) =>
        (dayDone > from ? (past.get(seq)?.rows ?? []) : []).map((r) => ({ seq, ...r })),
      ),
    };
    const parts = await Promise.all([
      pastRows,
      hourDone > dayDone ? buckets("hour", dayDone, hourDone) : undefined,
      raw,
    ]);
    const sums = new Map<string, Map<number, DayTotals>>();
    for (const part of parts) {
      for (const r of part?.rows ?? []) {
        const id = idOf.get(String(r.seq));
        if (id === undefined) continue;
        let perDay = sums.get(id);
        if (!perDay) {
          perDay = new Map();
          sums.set(id, perDay);
        }
        const day = Number(r.day);
        const t = perDay.get(day) ?? { day, runs: 0, failures: 0 };
        t.runs += Number(r.runs);
        t.failures += Number(r.failures);
        perDay.set(day, t);
      }
    }
    for (const [id, perDay] of sums)
      out.set(
        id,
        [...perDay.values()].sort((a, b) => a.day - b.day),
      );
    return out;
  }
}
