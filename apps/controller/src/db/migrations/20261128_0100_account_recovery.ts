import { type Kysely, sql } from "kysely";

/**
 * Accounts that recover (issue #28 items 1, 2): password reset tokens (single use, 30 minutes) and the
 * dashboard's refresh credentials (rotating, revocable; one family per sign-in). Both are stored as the
 * hex SHA-256 of the secret, never the secret.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table password_resets (
      id text primary key,
      user_id text not null references users(id) on delete cascade,
      token_hash text not null unique,
      created_at timestamptz not null default now(),
      expires_at timestamptz not null,
      used_at timestamptz
    )`.execute(db);
  await sql`create index password_resets_user_idx on password_resets (user_id)`.execute(db);
  await sql`
    create table refresh_tokens (
      id text primary key,
      user_id text not null references users(id) on delete cascade,
      family_id text not null,
      token_hash text not null unique,
      created_at timestamptz not null default now(),
      expires_at timestamptz not null,
      rotated_at timestamptz,
      revoked_at timestamptz
    )`.execute(db);
  await sql`create index refresh_tokens_user_idx on refresh_tokens (user_id)`.execute(db);
  await sql`create index refresh_tokens_family_idx on refresh_tokens (family_id)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table refresh_tokens`.execute(db);
  await sql`drop table password_resets`.execute(db);
}
