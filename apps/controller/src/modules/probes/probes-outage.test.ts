import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import { type Behaviour, doneReply, serveNode, settle } from "../../testing/agents.js";
import { makeTestApp, type TestApp } from "../../testing/test-app.js";
import { usePgCluster } from "../../testing/use-pg-cluster.js";

/**
 * Results that reach the controller while PostgreSQL is away are kept and written when it is back: a
 * Form A task whose node answered during the outage ends `done` with that answer, and a Form B task
 * answered during the outage can be read afterwards. (Before, Form A's three results were lost and the task
 * was failed ten minutes later.)
 */
describe("results answered while PostgreSQL is away", () => {
  const pg = usePgCluster();

  async function appWithNodes(form: "a" | "b", answer: Behaviour): Promise<TestApp> {
    const t = makeTestApp(pg.testDb, form);
    await t.presence.ready;
    for (const id of ["o1", "o2", "o3"]) serveNode(t.bus, { id, country: id === "o1" ? "DE" : "US" }, answer);
    await settle();
    return t;
  }

  async function pollDone(t: TestApp, id: string): Promise<{ status: string; results: unknown[] }> {
    for (;;) {
      const res = await t.call("GET", `/v1/probe/tasks/${id}`);
      if (res.status === 200 && (res.body.data.status === "done" || res.body.data.status === "failed"))
        return res.body.data;
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  it("form A: a task whose three results arrived during a 4 s outage ends done with all three", async () => {
    let release!: () => void;
    const outage = new Promise<void>((r) => {
      release = r;
    });
    const t = await appWithNodes("a", async (job) => {
      await outage;
      return doneReply(job, 3);
    });
    const created = await t.call("POST", "/v1/probe/tcp", {
      body: { target: "example.com:443", node_ids: ["o1", "o2", "o3"] },
    });
    expect(created.status).toBe(202);
    const id = created.body.data.task_id as string;
    await new Promise((r) => setTimeout(r, 200)); // the task is `running`, its jobs held by the nodes
    await pg.cluster.stop();
    release(); // the three answers arrive while the database is away
    await new Promise((r) => setTimeout(r, 4000));
    expect((await t.call("GET", `/v1/probe/tasks/${id}`)).status).toBe(503);
    await pg.cluster.start();
    const task = await pollDone(t, id);
    expect(task.status).toBe("done");
    expect(task.results).toHaveLength(3);
    await t.drain();
    await t.presence.stop();
  });

  it("form A: a result the database refuses, then its failed status refused as during an outage: the task ends failed, not running", async () => {
    // Real PostgreSQL errors from triggers: the results' insert fails with an error that is not an outage
    // (P0001), and the task's move to `failed` twice with 57P03 (the server starting up) before it lands.
    const { kysely } = pg.db;
    await sql`create sequence test_status_refusals`.execute(kysely);
    await sql`create function test_refuse_result() returns trigger language plpgsql as $$
      begin raise exception 'refused by the test' using errcode = 'P0001'; end $$`.execute(kysely);
    await sql`create function test_refuse_failed() returns trigger language plpgsql as $$
      begin
        if new.status = 'failed' and nextval('test_status_refusals') <= 2 then
          raise exception 'the database system is starting up' using errcode = '57P03';
        end if;
        return new;
      end $$`.execute(kysely);
    await sql`create trigger test_refuse_result before insert on probe_results
      for each row execute function test_refuse_result()`.execute(kysely);
    await sql`create trigger test_refuse_failed before update on probe_tasks
      for each row execute function test_refuse_failed()`.execute(kysely);
    try {
      const t = await appWithNodes("a", async (job) => doneReply(job, 3));
      const created = await t.call("POST", "/v1/probe/tcp", {
        body: { target: "example.com:443", node_ids: ["o1", "o2", "o3"] },
      });
      expect(created.status).toBe(202);
      const id = created.body.data.task_id as string;
      const task = await pollDone(t, id);
      expect(task.status).toBe("failed");
      // Both refusals were met, and the third attempt stored it.
      const { rows } = await sql<{ n: string }>`select last_value as n from test_status_refusals`.execute(
        kysely,
      );
      expect(Number(rows[0]!.n)).toBe(3);
      await t.drain();
      await t.presence.stop();
    } finally {
      await sql`drop trigger test_refuse_result on probe_results`.execute(kysely);
      await sql`drop trigger test_refuse_failed on probe_tasks`.execute(kysely);
      await sql`drop function test_refuse_result(); drop function test_refuse_failed()`.execute(kysely);
      await sql`drop sequence test_status_refusals`.execute(kysely);
    }
  });

  it("form B: probes answered during the outage are stored once it is back, each exactly once", async () => {
    const t = await appWithNodes("b", async (job) => doneReply(job, 2));
    await pg.cluster.stop();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await t.call("POST", "/v1/probe/tcp", {
        body: { host: "example.com", port: 443, nodes: ["o1"] },
      });
      expect(res.status).toBe(200);
      ids.push(res.body.data.task_id);
    }
    await new Promise((r) => setTimeout(r, 3000));
    await pg.cluster.start();
    for (const id of ids) {
      const task = await pollDone(t, id);
      expect(task.status).toBe("done");
    }
    await t.drain();
    const rows = await pg.db.kysely
      .selectFrom("probe_results")
      .select(["task_id"])
      .where("task_id", "in", ids)
      .execute();
    expect(rows.map((r) => r.task_id).sort()).toEqual([...ids].sort());
    await t.presence.stop();
  });
});
