import { type Kysely, sql } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table nodes (
      id text primary key,
      name text not null,
      country text not null,
      region text not null,
      provider text not null,
      version text not null,
      protocol_version integer not null,
      capabilities jsonb not null default '[]',
      running_jobs integer not null default 0,
      max_jobs integer not null default 0,
      last_seen timestamptz not null,
      first_seen timestamptz not null default now()
    )`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table nodes`.execute(db);
}
