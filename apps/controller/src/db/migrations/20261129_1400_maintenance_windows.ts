import { type Kysely, sql } from "kysely";

/**
 * Maintenance windows (issue #29 item 4): one-off (`starts_at`, `ends_at`) or recurring (an RRULE subset
 * from `start_local` in `time_zone`, each occurrence `duration_minutes` long), for some monitors or all of
 * the owner's (`all_monitors`). Runs go on; state changes inside a window make no alert.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table maintenance_windows (
      id text primary key,
      owner_id text not null references users (id) on delete cascade,
      title text not null,
      all_monitors boolean not null default false,
      monitor_ids text[] not null default '{}',
      starts_at timestamptz,
      ends_at timestamptz,
      rrule text,
      start_local text,
      time_zone text,
      duration_minutes integer,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    )`.execute(db);
  await sql`create index maintenance_windows_owner_idx on maintenance_windows (owner_id, created_at, id)`.execute(
    db,
  );
  // A state change muted by a window: kept on the change, so the alert path's decision can be read back.
  await sql`alter table monitor_state_changes add column maintenance_id text`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table monitor_state_changes drop column maintenance_id`.execute(db);
  await sql`drop table maintenance_windows`.execute(db);
}
