import { type Kysely, sql } from "kysely";

/**
 * Honest state (issue #29): a monitor with no completed run for two intervals becomes `unknown` with a
 * reason (`monitors.state_reason`: `no_nodes`, `scheduler_behind`, `paused_by_system`; null once a run
 * decides again). The state change that records it carries the same reason, so the notifier makes a
 * `monitor_stale` event of it and the uptime reads the gap back as unknown time.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table monitors add column state_reason text`.execute(db);
  await sql`alter table monitor_state_changes add column reason text`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table monitor_state_changes drop column reason`.execute(db);
  await sql`alter table monitors drop column state_reason`.execute(db);
}
