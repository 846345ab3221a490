import { type Kysely, sql } from "kysely";

/**
 * Form A tasks name the controller that runs them and when their nodes must have answered; controllers
 * hold a lease (renewed every few seconds). A task whose controller's lease ran out after its deadline was
 * left by a controller that died: the sweeper fails it within seconds instead of ten minutes.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table probe_tasks add column deadline_at timestamptz`.execute(db);
  await sql`alter table probe_tasks add column controller_id text`.execute(db);
  await sql`
    create index probe_tasks_unfinished_idx on probe_tasks (created_at) where status in ('queued', 'running')
  `.execute(db);
  await sql`
    create table controller_leases (
      id text primary key,
      started_at timestamptz not null default now(),
      renewed_at timestamptz not null
    )`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table controller_leases`.execute(db);
  await sql`drop index probe_tasks_unfinished_idx`.execute(db);
  await sql`alter table probe_tasks drop column controller_id`.execute(db);
  await sql`alter table probe_tasks drop column deadline_at`.execute(db);
}
