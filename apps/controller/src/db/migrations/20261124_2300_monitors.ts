import { type Kysely, sql } from "kysely";

/**
 * Monitors (recurring probes), their per-node run outcomes, roll-ups and state changes.
 *
 * - `monitors.next_run_at` is the next slot: schedulers claim due rows with FOR UPDATE SKIP LOCKED and move
 *   it one interval on (skipping slots missed while no scheduler ran) in the same statement.
 * - `monitor_runs` holds one row per run slot and node, keyed by the monitor's `seq` (8 bytes, not its text
 *   id) to keep the table small; raw rows are kept `VANTAGE_MONITOR_RETENTION_DAYS`, roll-ups longer.
 * - `monitor_state_changes` has one row per transition, unique per monitor and slot: a write repeated after
 *   a failure cannot record a transition twice.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table monitors (
      id text primary key,
      seq bigint generated always as identity unique,
      owner_id text not null references users (id) on delete cascade,
      name text not null,
      type text not null,
      target text not null,
      config jsonb not null default '{}',
      interval_s integer not null,
      status text not null default 'active',
      state text not null default 'unknown',
      state_changed_at timestamptz,
      fail_streak integer not null default 0,
      pass_streak integer not null default 0,
      last_slot timestamptz,
      next_run_at timestamptz not null,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    )`.execute(db);
  await sql`create index monitors_due_idx on monitors (next_run_at) where status = 'active'`.execute(db);
  await sql`create index monitors_owner_idx on monitors (owner_id, created_at, id)`.execute(db);
  await sql`
    create table monitor_runs (
      monitor_seq bigint not null,
      slot timestamptz not null,
      node_id text not null,
      success boolean not null,
      latency_ms real,
      error_code text,
      primary key (monitor_seq, slot, node_id)
    )`.execute(db);
  await sql`create index monitor_runs_slot_idx on monitor_runs (slot)`.execute(db);
  await sql`
    create table monitor_rollups (
      monitor_seq bigint not null,
      period text not null,
      bucket timestamptz not null,
      runs integer not null,
      failures integer not null,
      latency_p50 real,
      latency_p95 real,
      primary key (monitor_seq, period, bucket)
    )`.execute(db);
  await sql`
    create table monitor_state_changes (
      id text primary key,
      monitor_id text not null references monitors (id) on delete cascade,
      slot timestamptz not null,
      from_state text not null,
      to_state text not null,
      created_at timestamptz not null default now(),
      unique (monitor_id, slot)
    )`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table monitor_state_changes`.execute(db);
  await sql`drop table monitor_rollups`.execute(db);
  await sql`drop table monitor_runs`.execute(db);
  await sql`drop table monitors`.execute(db);
}
