import { type Kysely, sql } from "kysely";

/**
 * Each alert channel's delivery health, shared by every notifier: whether it is failing (since when, how
 * many attempts in a row, the last error) and when it may be tried next (`retry_at`, a probe with the
 * oldest queued delivery). While `retry_at` lies ahead, no notifier sends to the channel; the first success
 * clears it and the queued deliveries go out at once, oldest first.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table alert_channels
      add column failing_since timestamptz,
      add column failures integer not null default 0,
      add column retry_at timestamptz,
      add column last_error text,
      add column last_error_at timestamptz`.execute(db);
  await sql`
    create index alert_deliveries_channel_pending_idx on alert_deliveries (channel_id) where status = 'pending'
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index alert_deliveries_channel_pending_idx`.execute(db);
  await sql`
    alter table alert_channels
      drop column failing_since,
      drop column failures,
      drop column retry_at,
      drop column last_error,
      drop column last_error_at`.execute(db);
}
