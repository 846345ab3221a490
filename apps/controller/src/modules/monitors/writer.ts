import { type Kysely, sql } from "kysely";
import type { Logger } from "pino";
import { notify, STATE_CHANGES_CHANNEL } from "../../db/notify.js";
import type { Database } from "../../db/schema.js";
import type { MonitorState } from "../../db/tables/monitors.js";
import { newId } from "../../lib/ids.js";
import type { DownChange } from "./evidence.js";
import { applyRun, type Thresholds } from "./state.js";

/** One finished run of one monitor: every node's outcome and the run's (majority) verdict. */
export interface RunRecord {
  monitorId: string;
  seq: string;
  slot: Date;
  passed: boolean;
  thresholds: Thresholds;
  nodes: {
    node_id: string;
    success: boolean;
    latency_ms: number | null;
    error_code: string | null;
    /** http monitors: the status the node was answered with. */
    status_code?: number | null;
  }[];
}

export interface WriterStats {
  runsWritten: number;
  /** Node rows refused because a row for that monitor, slot and node was already stored (a slot run twice). */
  duplicateRows: number;
  transitions: number;
  /** Runs waiting to be written (the database away keeps them, up to `maxPending`). */
  pending: number;
  droppedRuns: number;
}

/**
 * Writes finished runs in batches (every `flushMs`, or at once past `maxBatch`): in one transaction, the node
 * rows (`monitor_runs`, duplicates refused by the primary key and counted), then each monitor's state —
 * streaks, `up`/`down`, the slot applied — and a `monitor_state_changes` row per transition (unique per
 * monitor and slot). A run applied ends a stale spell (`state_reason` back to null, see stale.ts). Runs
 * older than a monitor's `last_slot` are stored but do not move its state, so a
 * batch written twice, or late, changes nothing twice. A failed write keeps its runs for the next flush.
 */
export class RunWriter {
  private pending: RunRecord[] = [];
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> = Promise.resolve();
  readonly stats: WriterStats = {
    runsWritten: 0,
    duplicateRows: 0,
    transitions: 0,
    pending: 0,
    droppedRuns: 0,
  };

  constructor(
    private readonly db: Kysely<Database>,
    private readonly log: Logger,
    private readonly opts: {
      flushMs?: number;
      maxBatch?: number;
      maxPending?: number;
      /**
       * Called after a batch is written with its changes to `down` (their evidence marked pending): the
       * scheduler collects the failing nodes' traceroute and DNS (evidence.ts). Without it none is expected.
       */
      onDown?: (changes: DownChange[]) => void;
    } = {},
  ) {}

  add(run: RunRecord): void {
    this.pending.push(run);
    const maxPending = this.opts.maxPending ?? 200_000;
    if (this.pending.length > maxPending) {
      const dropped = this.pending.splice(0, this.pending.length - maxPending);
      this.stats.droppedRuns += dropped.length;
      this.log.error(
        { dropped: dropped.length },
        "monitor runs dropped: the database has been away too long",
      );
    }
    this.stats.pending = this.pending.length;
    if (this.pending.length >= (this.opts.maxBatch ?? 2000)) void this.flush();
    else if (!this.timer) {
      this.timer = setTimeout(() => void this.flush(), this.opts.flushMs ?? 200);
      this.timer.unref();
    }
  }

  flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.running = this.running.then(() => this.writeAll());
    return this.running;
  }

  private async writeAll(): Promise<void> {
    const max = this.opts.maxBatch ?? 2000;
    while (this.pending.length > 0) {
      const batch = this.pending.splice(0, max);
      try {
        await this.write(batch);
      } catch (err) {
        this.pending.unshift(...batch);
        this.stats.pending = this.pending.length;
        this.log.warn({ err, runs: batch.length }, "monitor runs not written yet; retrying");
        this.timer ??= setTimeout(() => void this.flush(), 1000);
        this.timer.unref();
        return;
      }
    }
    this.stats.pending = this.pending.length;
  }

  private async write(batch: RunRecord[]): Promise<void> {
    const rows = batch.flatMap((r) => r.nodes.map((n) => ({ ...n, seq: r.seq, slot: r.slot.toISOString() })));
    const downs: DownChange[] = [];
    await this.db.transaction().execute(async (tx) => {
      if (rows.length > 0) {
        const inserted = await sql<{ n: number | string }>`
          with ins as (
            insert into monitor_runs (monitor_seq, slot, node_id, success, latency_ms, error_code, status_code)
            select * from unnest(
              cast(cast(${rows.map((r) => String(r.seq))} as text[]) as bigint[]),
              cast(cast(${rows.map((r) => r.slot)} as text[]) as timestamptz[]),
              cast(${rows.map((r) => r.node_id)} as text[]),
              cast(cast(${rows.map((r) => String(r.success))} as text[]) as boolean[]),
              cast(cast(${rows.map((r) => (r.latency_ms === null ? null : String(r.latency_ms)))} as text[]) as real[]),
              cast(${rows.map((r) => r.error_code)} as text[]),
              cast(cast(${rows.map((r) => (typeof r.status_code === "number" ? String(r.status_code) : null))} as text[]) as smallint[])
            )
            on conflict do nothing
            returning 1
          )
          select count(*) as n from ins`.execute(tx);
        const n = Number(inserted.rows[0]?.n ?? 0);
        if (n < rows.length) {
          this.stats.duplicateRows += rows.length - n;
          this.log.warn(
            { duplicates: rows.length - n },
            "monitor run rows already stored (a slot ran twice?)",
          );
        }
      }
      // State, monitor by monitor in slot order; rows locked in id order (two writers never deadlock).
      const byMonitor = new Map<string, RunRecord[]>();
      for (const r of batch) {
        const list = byMonitor.get(r.monitorId);
        if (list) list.push(r);
        else byMonitor.set(r.monitorId, [r]);
      }
      const ids = [...byMonitor.keys()].sort();
      const { rows: current } = await sql<{
        id: string;
        state: MonitorState;
        fail_streak: number;
        pass_streak: number;
        last_slot: Date | string | null;
      }>`select id, state, fail_streak, pass_streak, last_slot from monitors
         where id = any(cast(${ids} as text[])) order by id for update`.execute(tx);
      const updates: {
        id: string;
        state: string;
        fs: number;
        ps: number;
        slot: string;
        changedAt: string | null;
      }[] = [];
      const changes: {
        id: string;
        monitorId: string;
        slot: string;
        from: string;
        to: string;
        failing: string[];
      }[] = [];
      for (const m of current) {
        let s = { state: m.state, failStreak: m.fail_streak, passStreak: m.pass_streak };
        let last = m.last_slot ? new Date(m.last_slot).getTime() : -Infinity;
        let changedAt: string | null = null;
        const runs = (byMonitor.get(m.id) ?? []).sort((a, b) => a.slot.getTime() - b.slot.getTime());
        let moved = false;
        for (const r of runs) {
          if (r.slot.getTime() <= last) continue;
          const next = applyRun(s, r.passed, r.thresholds);
          s = { state: next.state, failStreak: next.failStreak, passStreak: next.passStreak };
          last = r.slot.getTime();
          moved = true;
          if (next.changed) {
            changedAt = r.slot.toISOString();
            changes.push({
              id: newId("msc"),
              monitorId: m.id,
              slot: r.slot.toISOString(),
              from: next.changed.from,
              to: next.changed.to,
              failing: r.nodes.filter((n) => !n.success).map((n) => n.node_id),
            });
          }
        }
        if (moved) {
          updates.push({
            id: m.id,
            state: s.state,
            fs: s.failStreak,
            ps: s.passStreak,
            slot: new Date(last).toISOString(),
            changedAt,
          });
        }
      }
      if (updates.length > 0) {
        await sql`
          update monitors m set
            state = u.state, fail_streak = u.fs, pass_streak = u.ps, last_slot = u.slot, state_reason = null,
            state_changed_at = coalesce(u.changed_at, m.state_changed_at)
          from unnest(
            cast(${updates.map((u) => u.id)} as text[]),
            cast(${updates.map((u) => u.state)} as text[]),
            cast(cast(${updates.map((u) => String(u.fs))} as text[]) as integer[]),
            cast(cast(${updates.map((u) => String(u.ps))} as text[]) as integer[]),
            cast(cast(${updates.map((u) => u.slot)} as text[]) as timestamptz[]),
            cast(cast(${updates.map((u) => u.changedAt)} as text[]) as timestamptz[])
          ) as u(id, state, fs, ps, slot, changed_at)
          where m.id = u.id`.execute(tx);
      }
      if (changes.length > 0) {
        await sql`
          insert into monitor_state_changes (id, monitor_id, slot, from_state, to_state, evidence)
          select * from unnest(
            cast(${changes.map((c) => c.id)} as text[]),
            cast(${changes.map((c) => c.monitorId)} as text[]),
            cast(cast(${changes.map((c) => c.slot)} as text[]) as timestamptz[]),
            cast(${changes.map((c) => c.from)} as text[]),
            cast(${changes.map((c) => c.to)} as text[]),
            cast(cast(${changes.map((c) => (c.to === "down" && this.opts.onDown ? '{"pending":true}' : null))} as text[]) as jsonb[])
          )
          on conflict (monitor_id, slot) do nothing`.execute(tx);
        await notify(tx, STATE_CHANGES_CHANNEL, "");
        this.stats.transitions += changes.length;
        for (const c of changes)
          if (c.to === "down")
            downs.push({
              changeId: c.id,
              monitorId: c.monitorId,
              slot: new Date(c.slot),
              failingNodes: c.failing,
            });
      }
    });
    this.stats.runsWritten += batch.length;
    if (this.opts.onDown && downs.length > 0) this.opts.onDown(downs);
  }
}
