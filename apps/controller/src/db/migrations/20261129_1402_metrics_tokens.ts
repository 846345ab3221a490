import { type Kysely, sql } from "kysely";

/**
 * One OpenMetrics scrape token per account (issue #29 item 7): only its SHA-256 is stored, with a display
 * prefix; a new token replaces the old one.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table metrics_tokens (
      owner_id text primary key references users (id) on delete cascade,
      token_hash text not null unique,
      prefix text not null,
      created_at timestamptz not null default now(),
      last_used_at timestamptz
    )`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table metrics_tokens`.execute(db);
}
