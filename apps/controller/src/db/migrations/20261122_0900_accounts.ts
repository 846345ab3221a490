import { type Kysely, sql } from "kysely";

/**
 * Accounts: users, login sessions (one row per issued JWT, keyed by its `jti`), API keys and personal
 * access tokens (one table, told apart by `kind`; only a SHA-256 hash of the secret is kept), the mail
 * outbox and the shared fixed-window rate-limit counters.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table users (
      id text primary key,
      email text not null,
      password_hash text,
      email_verified boolean not null default false,
      phone text,
      phone_verified boolean not null default false,
      display_name text,
      avatar_url text,
      bio text,
      locale text not null default 'en',
      timezone text not null default 'UTC',
      theme text not null default 'system',
      status text not null default 'active',
      plan text not null default 'free',
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    )`.execute(db);
  await sql`create unique index users_email_lower_idx on users (lower(email))`.execute(db);

  await sql`
    create table sessions (
      id text primary key,
      user_id text not null references users (id) on delete cascade,
      created_at timestamptz not null default now(),
      expires_at timestamptz not null,
      revoked_at timestamptz
    )`.execute(db);
  await sql`create index sessions_expires_at_idx on sessions (expires_at)`.execute(db);

  await sql`
    create table api_keys (
      id text primary key,
      user_id text not null references users (id) on delete cascade,
      kind text not null,
      name text not null,
      key_hash text not null,
      key_prefix text not null,
      scopes jsonb not null,
      created_at timestamptz not null default now(),
      expires_at timestamptz,
      last_used_at timestamptz,
      revoked_at timestamptz
    )`.execute(db);
  await sql`create unique index api_keys_key_hash_idx on api_keys (key_hash)`.execute(db);
  await sql`create index api_keys_user_idx on api_keys (user_id, kind, created_at)`.execute(db);

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
    create table rate_limits (
      bucket text primary key,
      window_start timestamptz not null,
      hits integer not null,
      expires_at timestamptz not null
    )`.execute(db);
  await sql`create index rate_limits_expires_at_idx on rate_limits (expires_at)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table rate_limits`.execute(db);
  await sql`drop table mail_outbox`.execute(db);
  await sql`drop table api_keys`.execute(db);
  await sql`drop table sessions`.execute(db);
  await sql`drop table users`.execute(db);
}
