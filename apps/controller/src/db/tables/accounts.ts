import type { ColumnType, Generated, RawBuilder } from "kysely";

type Timestamp = ColumnType<Date, Date | string, Date | string>;
type CreatedAt = ColumnType<Date, Date | string | undefined, never>;
type NullableTimestamp = ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;

export interface UsersTable {
  id: string;
  /** Trimmed, domain lower-cased; unique case-insensitively (`lower(email)` index). */
  email: string;
  password_hash: string | null;
  email_verified: Generated<boolean>;
  phone: string | null;
  phone_verified: Generated<boolean>;
  display_name: string | null;
  avatar_url: string | null;
  bio: string | null;
  locale: Generated<string>;
  timezone: Generated<string>;
  theme: Generated<string>;
  status: Generated<string>;
  plan: Generated<string>;
  created_at: CreatedAt;
  updated_at: ColumnType<Date, Date | string | undefined, Date | string>;
}

/** One row per issued access token (`id` is the JWT's `jti`). */
export interface SessionsTable {
  id: string;
  user_id: string;
  created_at: CreatedAt;
  expires_at: Timestamp;
  revoked_at: NullableTimestamp;
}

/** `mcp`: a Form A MCP token, accepted only at `/v1/mcp` (the column is free text: no migration needed). */
export type ApiKeyKind = "api_key" | "pat" | "mcp";

export interface ApiKeysTable {
  id: string;
  user_id: string;
  kind: ApiKeyKind;
  name: string;
  /** Hex SHA-256 of the whole secret. */
  key_hash: string;
  key_prefix: string;
  scopes: ColumnType<string[], RawBuilder<string> | string, RawBuilder<string> | string>;
  created_at: CreatedAt;
  expires_at: NullableTimestamp;
  last_used_at: NullableTimestamp;
  revoked_at: NullableTimestamp;
}

/** A password reset token: single use, 30 minutes; `token_hash` is the hex SHA-256 of the mailed secret. */
export interface PasswordResetsTable {
  id: string;
  user_id: string;
  token_hash: string;
  created_at: CreatedAt;
  expires_at: Timestamp;
  used_at: NullableTimestamp;
}

/**
 * A dashboard refresh credential (the `vantage_refresh` cookie): rotated on every use (`rotated_at`), all
 * of one sign-in sharing `family_id`, so a rotated one presented again revokes the family.
 */
export interface RefreshTokensTable {
  id: string;
  user_id: string;
  family_id: string;
  token_hash: string;
  created_at: CreatedAt;
  expires_at: Timestamp;
  rotated_at: NullableTimestamp;
  revoked_at: NullableTimestamp;
}

export interface AccountTables {
  users: UsersTable;
  sessions: SessionsTable;
  api_keys: ApiKeysTable;
  password_resets: PasswordResetsTable;
  refresh_tokens: RefreshTokensTable;
}
