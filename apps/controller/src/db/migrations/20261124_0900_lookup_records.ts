import { type Kysely, sql } from "kysely";

/**
 * Earlier answers of lookups whose sources come and go: the ICP lookup answers from here (saying so) when
 * its provider and the site are both out of reach. One row per kind and key, the newest answer.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table lookup_records (
      kind text not null,
      key text not null,
      record jsonb not null,
      checked_at timestamptz not null,
      primary key (kind, key)
    )`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table lookup_records`.execute(db);
}
