import { type Kysely, sql } from "kysely";
import type { Database } from "../../db/schema.js";
import type { ProbeTaskStatus } from "../../db/tables/probes.js";

/** One of an account's tasks as its list shows it: no results, their count. */
export interface TaskSummary {
  id: string;
  type: string;
  target: string;
  status: ProbeTaskStatus;
  created_at: Date;
  finished_at: Date | null;
  /** Nodes the task was sent to. */
  nodes: number;
  /** Nodes whose probe succeeded. */
  succeeded: number;
  /** The live share link's id, if the task has one. */
  share_id: string | null;
}

/**
 * A page of the account's tasks, newest first (the owner index, read backwards), and how many it has in
 * all; `type` narrows both. The page is cut before the results are counted: the rows an offset skips cost
 * no subquery (a deep page of 100 took 250 ms p50 at 100,000 tasks with them, bench:probe-history). Tasks a controller answered but has not written yet (Form B, ~20 ms) are not
 * here yet.
 */
export async function listOwnedTasks(
  db: Kysely<Database>,
  ownerId: string,
  q: { page: number; limit: number; type?: string | undefined },
): Promise<{ items: TaskSummary[]; total: number }> {
  // Two statement texts, with and without the type: a prepared statement's generic plan for
  // `($2 is null or type = $2)` cannot use the owner index and read the whole table (bench:probe-history).
  const byType = q.type === undefined ? sql`` : sql`and t.type = ${q.type}`;
  const { rows } = await sql<
    Omit<TaskSummary, "created_at" | "finished_at"> & {
      created_at: Date | string;
      finished_at: Date | string | null;
    }
  >`
    select t.id, t.type, t.target, t.status, t.created_at, t.finished_at,
      jsonb_array_length(t.node_ids) as nodes,
      (select count(*) from probe_results r where r.task_id = t.id and r.success)::int as succeeded,
      (select s.id from probe_shares s where s.task_id = t.id and s.revoked_at is null) as share_id
    from (
      select * from probe_tasks t
      where t.owner_id = ${ownerId} ${byType}
      order by t.created_at desc, t.id desc
      limit ${q.limit} offset ${(q.page - 1) * q.limit}
    ) t
    order by t.created_at desc, t.id desc`.execute(db);
  const count = await sql<{ n: number }>`
    select count(*)::int as n from probe_tasks t where t.owner_id = ${ownerId} ${byType}`.execute(db);
  return {
    items: rows.map((r) => ({
      ...r,
      created_at: new Date(r.created_at),
      finished_at: r.finished_at === null ? null : new Date(r.finished_at),
    })),
    total: count.rows[0]?.n ?? 0,
  };
}
