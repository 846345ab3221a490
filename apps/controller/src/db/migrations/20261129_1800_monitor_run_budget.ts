import { type Kysely, sql } from "kysely";

/**
 * How long one run of a monitor may take, seconds (its probe's budget plus the dispatch grace, from
 * modules/probes/deadlines.ts), set when the monitor is created or its config changes. The stale sweep
 * waits for the longer of the interval and this before it calls a slot missed, so a timeout longer than
 * the interval no longer reads as "no run". Rows from before keep 0: the interval alone, as before, until
 * their next config change.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table monitors add column run_budget_s integer not null default 0`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table monitors drop column run_budget_s`.execute(db);
}
