import { type Kysely, sql } from "kysely";

/**
 * A policy for all of its owner's monitors (issue #28 item 8): `monitor_id` null means every monitor the
 * owner has or makes later. The alert path finds those policies by owner, through the partial index.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table alert_policies alter column monitor_id drop not null`.execute(db);
  await sql`create index alert_policies_all_idx on alert_policies (owner_id) where monitor_id is null`.execute(
    db,
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index alert_policies_all_idx`.execute(db);
  await sql`delete from alert_policies where monitor_id is null`.execute(db);
  await sql`alter table alert_policies alter column monitor_id set not null`.execute(db);
}
