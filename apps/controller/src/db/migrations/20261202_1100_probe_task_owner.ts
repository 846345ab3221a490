import { type Kysely, sql } from "kysely";

/**
 * A probe task belongs to its account by foreign key, so an account's deletion takes every task with it,
 * also one its controller writes after the deletion (Form B writes a task behind its answer, ADR 0003):
 * the key's check waits for the deletion and refuses the late row, which the writer then leaves out. Tasks
 * of accounts already deleted are removed first (they could not be read by anyone). The owner index serves
 * the deletion's cascade and an account's list of its tasks, newest first (`GET /v1/probe/tasks`), with
 * the type it may be narrowed by (its count then needs no table read); the created_at index already serves
 * the retention sweep (sweeper.ts).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  // A task's deletion (retention, an account's) removes its shares by key: without an index of every share's
  // task (the unique one holds live shares only), each deleted task read the whole table.
  await sql`create index probe_shares_task_idx on probe_shares (task_id)`.execute(db);
  await sql`
    delete from probe_tasks t
    where t.owner_id is not null and not exists (select 1 from users u where u.id = t.owner_id)`.execute(db);
  await sql`create index probe_tasks_owner_idx on probe_tasks (owner_id, created_at, id) include (type) where owner_id is not null`.execute(
    db,
  );
  await sql`
    alter table probe_tasks add constraint probe_tasks_owner_fk
      foreign key (owner_id) references users (id) on delete cascade`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table probe_tasks drop constraint probe_tasks_owner_fk`.execute(db);
  await sql`drop index probe_shares_task_idx`.execute(db);
  await sql`drop index probe_tasks_owner_idx`.execute(db);
}
