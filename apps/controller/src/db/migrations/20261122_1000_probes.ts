import { type Kysely, sql } from "kysely";

/**
 * Probe tasks and their per-node results. Also gives `nodes` a `draining` flag: an agent's last heartbeat
 * before it stops marks the node offline at once instead of after the freshness window.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table nodes add column draining boolean not null default false`.execute(db);
  await sql`
    create table probe_tasks (
      id text primary key,
      type text not null,
      target text not null,
      spec jsonb not null,
      status text not null,
      node_ids jsonb not null default '[]',
      owner_id text,
      created_at timestamptz not null default now(),
      finished_at timestamptz
    )`.execute(db);
  await sql`create index probe_tasks_created_at_idx on probe_tasks (created_at)`.execute(db);
  await sql`
    create table probe_results (
      task_id text not null references probe_tasks (id) on delete cascade,
      node_id text not null,
      node_name text not null,
      position integer not null,
      success boolean not null,
      latency_ms double precision,
      error_code text,
      error_message text,
      detail jsonb,
      duration_ms double precision,
      created_at timestamptz not null default now(),
      primary key (task_id, node_id)
    )`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table probe_results`.execute(db);
  await sql`drop table probe_tasks`.execute(db);
  await sql`alter table nodes drop column draining`.execute(db);
}
