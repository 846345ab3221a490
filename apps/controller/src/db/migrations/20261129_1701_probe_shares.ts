import { type Kysely, sql } from "kysely";

/**
 * Share links (issue #30 item 5, docs/shares.md): an owner publishes a task under an unguessable id; the
 * public page and JSON read it while `revoked_at` is null. At most one live share per task. Form A tasks
 * may name a `callback_url`, called once (signed) when the task finishes.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table probe_shares (
      id text primary key,
      task_id text not null references probe_tasks(id) on delete cascade,
      owner_id text not null,
      created_at timestamptz not null default now(),
      revoked_at timestamptz
    )`.execute(db);
  await sql`create unique index probe_shares_live on probe_shares (task_id) where revoked_at is null`.execute(
    db,
  );
  await sql`alter table probe_tasks add column callback_url text`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table probe_tasks drop column callback_url`.execute(db);
  await sql`drop table probe_shares`.execute(db);
}
