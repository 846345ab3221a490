import { createTestDatabase } from "@vantage/testing";
import { Migrator, sql } from "kysely";
import { describe, expect, it } from "vitest";
import { connectDb, migrate } from "./connect.js";
import { inlineMigrations } from "./migrations/index.js";

/**
 * A database made by an earlier release, with rows in it, upgraded by the migrations since: what a
 * deployment's first start of a new release does. PostgreSQL (an embedded PGlite directory runs the same
 * migrations).
 */
describe("upgrading a database with data in it", () => {
  it("20261202_1100: tasks of deleted accounts go with their results and shares; the others stay, owned by key", async () => {
    const tdb = await createTestDatabase();
    const db = await connectDb({ databaseUrl: tdb.url, dataDir: "unused", maxConnections: 2 });
    try {
      const before = await new Migrator({ db: db.kysely, provider: inlineMigrations }).migrateTo(
        "20261129_1800_monitor_run_budget",
      );
      expect(before.error).toBeUndefined();
      const k = db.kysely;
      await sql`insert into users (id, email, password_hash) values ('usr_kept', 'kept@example.com', 'x')`.execute(
        k,
      );
      await sql`
        insert into probe_tasks (id, type, target, spec, status, owner_id)
        values ('task_owned', 'tcp', '192.0.2.1:443', '{}', 'done', 'usr_kept'),
               ('task_orphan', 'tcp', '192.0.2.2:443', '{}', 'done', 'usr_deleted_before'),
               ('task_anonymous', 'tcp', '192.0.2.3:443', '{}', 'done', null)`.execute(k);
      await sql`
        insert into probe_results (task_id, node_id, node_name, position, success)
        values ('task_owned', 'n1', 'N1', 0, true), ('task_orphan', 'n1', 'N1', 0, true),
               ('task_anonymous', 'n1', 'N1', 0, false)`.execute(k);
      await sql`insert into probe_shares (id, task_id, owner_id) values ('shr_orphan', 'task_orphan', 'usr_deleted_before')`.execute(
        k,
      );

      expect(await migrate(db)).toContain("20261202_1100_probe_task_owner");
      const tasks = await sql<{ id: string }>`select id from probe_tasks order by id`.execute(k);
      expect(tasks.rows.map((r) => r.id)).toEqual(["task_anonymous", "task_owned"]);
      const results = await sql<{
        task_id: string;
      }>`select task_id from probe_results order by task_id`.execute(k);
      expect(results.rows.map((r) => r.task_id)).toEqual(["task_anonymous", "task_owned"]);
      expect((await sql`select id from probe_shares`.execute(k)).rows).toEqual([]);

      // From now on the key holds: no task for an unknown account, and an account takes its tasks along.
      await expect(
        sql`insert into probe_tasks (id, type, target, spec, status, owner_id)
            values ('task_new', 'tcp', 'x', '{}', 'done', 'usr_nobody')`.execute(k),
      ).rejects.toMatchObject({ code: "23503" });
      await sql`delete from users where id = 'usr_kept'`.execute(k);
      const left = await sql<{ id: string }>`select id from probe_tasks order by id`.execute(k);
      expect(left.rows.map((r) => r.id)).toEqual(["task_anonymous"]);
    } finally {
      await db.close();
      await tdb.drop();
    }
  });
});
