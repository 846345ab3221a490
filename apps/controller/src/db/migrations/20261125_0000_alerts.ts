import { type Kysely, sql } from "kysely";

/**
 * Alerts: channels (their secrets sealed, see lib/secret-box.ts), policies binding a monitor to channels,
 * events made from monitor state changes, and one delivery per event and channel.
 *
 * - `monitor_state_changes.alerted_at`: set in the transaction that makes the change's events, so each
 *   change becomes its events exactly once, whichever notifier claims it.
 * - `alert_events` is unique per policy and state change; `alert_deliveries` per event and channel, so a
 *   repeated write never doubles a message.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table alert_channels (
      id text primary key,
      owner_id text not null references users (id) on delete cascade,
      name text not null,
      type text not null,
      config jsonb not null default '{}',
      secrets text,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    )`.execute(db);
  await sql`create index alert_channels_owner_idx on alert_channels (owner_id, created_at, id)`.execute(db);
  await sql`
    create table alert_policies (
      id text primary key,
      owner_id text not null references users (id) on delete cascade,
      name text not null,
      monitor_id text not null references monitors (id) on delete cascade,
      channel_ids text[] not null default '{}',
      on_down boolean not null default true,
      on_up boolean not null default true,
      reminder_minutes integer,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    )`.execute(db);
  await sql`create index alert_policies_monitor_idx on alert_policies (monitor_id)`.execute(db);
  await sql`create index alert_policies_owner_idx on alert_policies (owner_id, created_at, id)`.execute(db);
  await sql`
    create table alert_events (
      id text primary key,
      owner_id text not null references users (id) on delete cascade,
      policy_id text not null references alert_policies (id) on delete cascade,
      monitor_id text not null,
      type text not null,
      state_change_id text,
      detail jsonb not null default '{}',
      created_at timestamptz not null default now(),
      unique (policy_id, state_change_id)
    )`.execute(db);
  await sql`create index alert_events_owner_idx on alert_events (owner_id, created_at desc, id)`.execute(db);
  await sql`
    create table alert_deliveries (
      id text primary key,
      event_id text not null references alert_events (id) on delete cascade,
      channel_id text not null,
      status text not null default 'pending',
      attempts integer not null default 0,
      next_attempt_at timestamptz not null default now(),
      sent_at timestamptz,
      last_error text,
      log jsonb not null default '[]',
      unique (event_id, channel_id)
    )`.execute(db);
  await sql`
    create index alert_deliveries_due_idx on alert_deliveries (next_attempt_at) where status = 'pending'
  `.execute(db);
  await sql`alter table monitor_state_changes add column alerted_at timestamptz`.execute(db);
  await sql`
    create index monitor_state_changes_unalerted_idx on monitor_state_changes (created_at)
    where alerted_at is null`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table monitor_state_changes drop column alerted_at`.execute(db);
  await sql`drop table alert_deliveries`.execute(db);
  await sql`drop table alert_events`.execute(db);
  await sql`drop table alert_policies`.execute(db);
  await sql`drop table alert_channels`.execute(db);
}
