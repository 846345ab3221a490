import { type Kysely, sql } from "kysely";
import type { Database } from "../../db/schema.js";
import type { RateLimitStore } from "./limiter.js";

/** Counters in the `rate_limits` table: shared by every controller on the database. */
export function dbRateLimitStore(db: Kysely<Database>): RateLimitStore {
  let sinceSweep = 0;
  return {
    async add(bucket, windowStart, windowMs, cost) {
      const start = new Date(windowStart);
      const expires = new Date(windowStart + windowMs);
      const { rows } = await sql<{ hits: number | string }>`
        insert into rate_limits (bucket, window_start, hits, expires_at)
        values (${bucket}, ${start}, ${cost}, ${expires})
        on conflict (bucket) do update set
          hits = case when rate_limits.window_start = excluded.window_start
                      then rate_limits.hits + excluded.hits else excluded.hits end,
          window_start = excluded.window_start,
          expires_at = excluded.expires_at
        returning hits`.execute(db);
      if (++sinceSweep >= 500) {
        sinceSweep = 0;
        await db.deleteFrom("rate_limits").where("expires_at", "<", new Date()).execute();
      }
      return Number(rows[0]?.hits ?? cost);
    },
    async get(bucket, windowStart) {
      const row = await db
        .selectFrom("rate_limits")
        .select(["hits", "window_start"])
        .where("bucket", "=", bucket)
        .executeTakeFirst();
      if (!row || new Date(row.window_start).getTime() !== windowStart) return 0;
      return Number(row.hits);
    },
    async clear(bucket) {
      await db.deleteFrom("rate_limits").where("bucket", "=", bucket).execute();
    },
  };
}
