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
    const [hourRows, rawRows] = await Promise.all([
      hourDone > dayDone ? buckets("hour", dayDone, hourDone) : undefined,
      raw,
    ]);
    // Each monitor's days in arrays indexed from the window's first day, so a status page of 50 monitors
    // × 90 days makes no object per row read; every read is bounded by the window.
    const first = Math.floor(from / DAY_MS);
    const sums = new Map<string, { runs: number[]; failures: number[]; seen: Uint8Array }>();
    const add = (seq: string, day: number, runs: number, failures: number) => {
      const id = idOf.get(seq);
      const i = day - first;
      if (id === undefined || i < 0 || i >= days) return;
      let s = sums.get(id);
      if (!s) {
        s = { runs: new Array(days).fill(0), failures: new Array(days).fill(0), seen: new Uint8Array(days) };
        sums.set(id, s);
      }
      s.runs[i]! += runs;
      s.failures[i]! += failures;
      s.seen[i] = 1;
    };
    if (dayDone > from)
      for (const seq of seqs) for (const r of past.get(seq)?.rows ?? []) add(seq, r.day, r.runs, r.failures);
    for (const r of hourRows?.rows ?? [])
      add(String(r.seq), Number(r.day), Number(r.runs), Number(r.failures));
    for (const r of rawRows.rows) add(String(r.seq), Number(r.day), Number(r.runs), Number(r.failures));
    for (const [id, s] of sums) {
      const list: DayTotals[] = [];
      for (let i = 0; i < days; i++)
        if (s.seen[i] === 1) list.push({ day: first + i, runs: s.runs[i]!, failures: s.failures[i]! });
      out.set(id, list);
    }
    return out;
  }
}
