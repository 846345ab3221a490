import { type Kysely, sql } from "kysely";

/**
 * Status pages (issue #29 item 5): public pages per account with their components (monitors or groups of
 * monitors, as JSON), incidents and their updates, scheduled maintenance entries and subscribers. An
 * incident opened automatically for a monitor is unique per page and monitor while it is open.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table status_pages (
      id text primary key,
      owner_id text not null references users(id) on delete cascade,
      slug text not null unique,
      title text not null,
      logo_url text,
      custom_domain text unique,
      components jsonb not null default '[]'::jsonb,
      auto_incidents boolean not null default true,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    )`.execute(db);
  await sql`create index status_pages_owner_idx on status_pages (owner_id, id)`.execute(db);
  await sql`
    create table status_incidents (
      id text primary key,
      page_id text not null references status_pages(id) on delete cascade,
      title text not null,
      status text not null,
      impact text not null,
      monitor_id text,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      resolved_at timestamptz
    )`.execute(db);
  await sql`create index status_incidents_page_idx on status_incidents (page_id, created_at desc)`.execute(
    db,
  );
  await sql`
    create unique index status_incidents_auto_open on status_incidents (page_id, monitor_id)
    where monitor_id is not null and resolved_at is null`.execute(db);
  await sql`
    create table status_incident_updates (
      id text primary key,
      incident_id text not null references status_incidents(id) on delete cascade,
      status text not null,
      message text not null,
      created_at timestamptz not null default now()
    )`.execute(db);
  await sql`create index status_incident_updates_idx on status_incident_updates (incident_id, created_at)`.execute(
    db,
  );
  await sql`
    create table status_maintenance (
      id text primary key,
      page_id text not null references status_pages(id) on delete cascade,
      title text not null,
      description text not null default '',
      starts_at timestamptz not null,
      ends_at timestamptz not null,
      created_at timestamptz not null default now()
    )`.execute(db);
  await sql`create index status_maintenance_page_idx on status_maintenance (page_id, starts_at)`.execute(db);
  await sql`
    create table status_subscribers (
      id text primary key,
      page_id text not null references status_pages(id) on delete cascade,
      kind text not null,
      destination text not null,
      secret_sealed text,
      token_hash text not null unique,
      confirmed_at timestamptz,
      created_at timestamptz not null default now(),
      unique (page_id, kind, destination)
    )`.execute(db);
  // Incident notices to webhook subscribers, sent (signed at send time) and retried by the notifier role.
  await sql`
    create table status_webhook_deliveries (
      id text primary key,
      subscriber_id text not null references status_subscribers(id) on delete cascade,
      body text not null,
      attempts integer not null default 0,
      next_attempt_at timestamptz not null default now(),
      sent_at timestamptz,
      last_error text,
      created_at timestamptz not null default now()
    )`.execute(db);
  await sql`
    create index status_webhook_deliveries_due on status_webhook_deliveries (next_attempt_at)
    where sent_at is null`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const t of [
    "status_webhook_deliveries",
    "status_subscribers",
    "status_maintenance",
    "status_incident_updates",
    "status_incidents",
    "status_pages",
  ]) {
    await sql`drop table if exists ${sql.table(t)}`.execute(db);
  }
}
