import type { Kysely } from "kysely";
import { jsonb } from "../../db/json.js";
import type { Database } from "../../db/schema.js";

/** Every SQL statement of the info module: the newest answer per lookup kind and key. */
export interface LookupRecordRepo {
  get(kind: string, key: string): Promise<Record<string, unknown> | undefined>;
  put(kind: string, key: string, record: Record<string, unknown>, checkedAt: Date): Promise<void>;
}

export function lookupRecordRepo(db: Kysely<Database>): LookupRecordRepo {
  return {
    async get(kind, key) {
      const row = await db
        .selectFrom("lookup_records")
        .select("record")
        .where("kind", "=", kind)
        .where("key", "=", key)
        .executeTakeFirst();
      // PGlite and postgres.js both hand jsonb back parsed; a string would be an old driver's text.
      const record = row?.record as unknown;
      return typeof record === "string"
        ? (JSON.parse(record) as Record<string, unknown>)
        : (record as Record<string, unknown> | undefined);
    },
    async put(kind, key, record, checkedAt) {
      const json = jsonb(record);
      await db
        .insertInto("lookup_records")
        .values({ kind, key, record: json, checked_at: checkedAt })
        .onConflict((oc) =>
          oc
            .columns(["kind", "key"])
            .doUpdateSet({ record: json, checked_at: checkedAt })
            .where("lookup_records.checked_at", "<=", checkedAt),
        )
        .execute();
    },
  };
}
