import { type RawBuilder, sql } from "kysely";

/**
 * A value for a jsonb column. Sent as text and cast on the server: postgres.js would otherwise send a
 * JavaScript string as a JSON string (the object stored as one quoted text), PGlite would parse it.
 */
export function jsonb<T = string>(value: unknown): RawBuilder<T> {
  return sql<T>`cast(cast(${JSON.stringify(value)} as text) as jsonb)`;
}
