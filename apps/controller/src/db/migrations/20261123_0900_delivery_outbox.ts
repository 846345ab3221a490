import { type Kysely, sql } from "kysely";

/**
 * The mail outbox becomes a general delivery outbox: one row per message to deliver on one channel (email
 * today; alert channels next), with the channel's payload as JSON. Queued mail carries over as `email` rows.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table delivery_outbox (
      id text primary key,
      channel text not null,
      destination text not null,
      payload jsonb not null,
      created_at timestamptz not null default now(),
      next_attempt_at timestamptz not null default now(),
      attempts integer not null default 0,
      sent_at timestamptz,
      last_error text
    )`.execute(db);
  await sql`
    create index delivery_outbox_due_idx on delivery_outbox (next_attempt_at) where sent_at is null
  `.execute(db);
  await sql`
    insert into delivery_outbox
      (id, channel, destination, payload, created_at, next_attempt_at, attempts, sent_at, last_error)
    select id, 'email', to_address, jsonb_build_object('subject', subject, 'text', body_text),
      created_at, next_attempt_at, attempts, sent_at, last_error
    from mail_outbox`.execute(db);
  await sql`drop table mail_outbox`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table mail_outbox (
      id text primary key,
      to_address text not null,
      subject text not null,
      body_text text not null,
      created_at timestamptz not null default now(),
      next_attempt_at timestamptz not null default now(),
      attempts integer not null default 0,
      sent_at timestamptz,
      last_error text
    )`.execute(db);
  await sql`create index mail_outbox_due_idx on mail_outbox (next_attempt_at) where sent_at is null`.execute(
    db,
  );
  await sql`
    insert into mail_outbox
      (id, to_address, subject, body_text, created_at, next_attempt_at, attempts, sent_at, last_error)
    select id, destination, payload->>'subject', payload->>'text',
      created_at, next_attempt_at, attempts, sent_at, last_error
    from delivery_outbox where channel = 'email'`.execute(db);
  await sql`drop table delivery_outbox`.execute(db);
}
