import { type Kysely, sql } from "kysely";

/**
 * Metered use per account, UTC day and endpoint family (`probes` in node-probes, `lookups`, `reputation`):
 * what billing charges for and `GET /v1/account/usage` shows. Controllers add to it in batches.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table usage_daily (
      user_id text not null references users(id) on delete cascade,
      day date not null,
      family text not null,
      units bigint not null default 0,
      calls bigint not null default 0,
      updated_at timestamptz not null default now(),
      primary key (user_id, day, family)
    )`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table usage_daily`.execute(db);
}
