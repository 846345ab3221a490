import { type Kysely, sql } from "kysely";

/**
 * Evidence on alert (issue #29 item 3): a change to `down` made by the scheduler's writer starts with
 * `evidence = {"pending": true}`; the failing nodes' traceroute and DNS results replace it (a JSON array,
 * see modules/monitors/evidence.ts). The notifier holds such a change back while it is pending, at most
 * 20 s, and copies the array into the alert event's detail. Null: no evidence expected.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table monitor_state_changes add column evidence jsonb`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table monitor_state_changes drop column evidence`.execute(db);
}
