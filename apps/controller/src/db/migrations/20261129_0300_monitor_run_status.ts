import { type Kysely, sql } from "kysely";

/**
 * The HTTP status an http monitor's node was answered with, kept with the run (null for other types and
 * when no answer came): a run that failed on `unexpected_status` then says which status it was.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table monitor_runs add column status_code smallint`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table monitor_runs drop column status_code`.execute(db);
}
