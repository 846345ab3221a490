import { type Kysely, sql } from "kysely";

/**
 * Escalation and acknowledgement (issue #29 item 6): a policy's `escalation` steps (after N minutes
 * unacknowledged, notify more channels) and who acknowledged a down event, when. The steps are JSON:
 * `[{ "after_minutes": n, "channel_ids": [...] }]`, in order.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table alert_policies add column escalation jsonb not null default '[]'`.execute(db);
  await sql`alter table alert_events add column acknowledged_at timestamptz`.execute(db);
  await sql`alter table alert_events add column acknowledged_by text`.execute(db);
  // Escalation finds open down events by time; acknowledged and old ones leave the index.
  await sql`create index alert_events_open_down_idx on alert_events (created_at)
    where type = 'down' and acknowledged_at is null`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index alert_events_open_down_idx`.execute(db);
  await sql`alter table alert_events drop column acknowledged_by`.execute(db);
  await sql`alter table alert_events drop column acknowledged_at`.execute(db);
  await sql`alter table alert_policies drop column escalation`.execute(db);
}
