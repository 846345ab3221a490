import { describe, expect, it } from "vitest";
import { newUser } from "../../testing/accounts.js";
import { doneReply, serveNode, settle } from "../../testing/agents.js";
import { tcpBody } from "../../testing/probe-requests.js";
import { dbKinds, forms, type TestApp } from "../../testing/test-app.js";
import { until } from "../../testing/until.js";
import { useTestDb } from "../../testing/use-test-db.js";

/**
 * `GET /v1/probe/tasks`: an account's own tasks, newest first, without results; paged in each form's
 * words, narrowed by `type`; nobody else's, no anonymous ones; credentials required.
 */

interface Summary {
  task_id: string;
  type: string;
  target: string;
  status: string;
  created_at: string;
  finished_at: string | null;
  nodes: number;
  succeeded: number;
  share_id: string | null;
}

describe.each(dbKinds)("an account's list of its probe tasks on %s", (kind) => {
  const db = useTestDb(kind);

  describe.each(forms)("form %s", (form) => {
    const size = form === "a" ? "limit" : "per_page";

    async function probe(t: TestApp, headers: Record<string, string>, port: number, nodes: string[]) {
      const created = await t.call("POST", "/v1/probe/tcp", {
        body: tcpBody(form, "example.com", port, nodes),
        headers,
      });
      expect(created.status).toBeLessThan(300);
      const id = created.body.data.task_id as string;
      await until(`task ${id} finished`, async () => {
        const got = await t.call("GET", `/v1/probe/tasks/${id}`, { headers });
        return got.status === 200 && got.body.data.status === "done";
      });
      return id;
    }

    it("lists the caller's tasks newest first with their counts and share; pages, filters, refuses others", async () => {
      const t = await db.freshApp(form);
      serveNode(t.bus, { id: "ok1" });
      serveNode(t.bus, { id: "refused1" }, (job) => ({
        ...(doneReply(job) as object),
        outcome: {
          success: false,
          latency_ms: null,
          error: { code: "connection_refused", message: "connection refused" },
          detail: null,
        },
      }));
      await settle();
      const owner = await newUser(t, "history");
      const other = await newUser(t, "history-other");
      const first = await probe(t, owner.headers, 443, ["ok1", "refused1"]);
      const second = await probe(t, owner.headers, 80, ["ok1"]);
      const third = await probe(t, owner.headers, 22, ["refused1"]);
      await probe(t, {}, 443, ["ok1"]);
      const others = await probe(t, other.headers, 443, ["ok1"]);
      const shared = await t.call("POST", `/v1/probe/tasks/${second}/share`, { headers: owner.headers });
      expect(shared.status).toBe(201);

      // Form B writes a task behind its answer: listed once written.
      const list = async (query = "", headers = owner.headers) =>
        t.call("GET", `/v1/probe/tasks${query}`, { headers });
      await until("three tasks listed", async () => (await list()).body.data?.total === 3);
      const all = await list();
      expect(all.status).toBe(200);
      expect(all.body.data).toMatchObject({ total: 3, page: 1, [size]: 20 });
      const items = all.body.data.items as Summary[];
      expect(items.map((i) => i.task_id)).toEqual([third, second, first]);
      expect(items.map((i) => [i.nodes, i.succeeded])).toEqual([
        [1, 0],
        [1, 1],
        [2, 1],
      ]);
      expect(items[1]).toMatchObject({
        type: "tcp",
        target: "example.com:80",
        status: "done",
        share_id: shared.body.data.share_id,
      });
      expect(items[0]?.share_id).toBeNull();
      for (const i of items) {
        expect(Date.parse(i.created_at)).toBeLessThanOrEqual(Date.parse(i.finished_at!));
        expect(Object.keys(i).sort()).toEqual([
          "created_at",
          "finished_at",
          "nodes",
          "share_id",
          "status",
          "succeeded",
          "target",
          "task_id",
          "type",
        ]);
      }

      // Pages in the form's words, and a page past the end.
      const page2 = await list(`?page=2&${size}=2`);
      expect(page2.body.data).toMatchObject({ total: 3, page: 2, [size]: 2 });
      expect((page2.body.data.items as Summary[]).map((i) => i.task_id)).toEqual([first]);
      const past = await list(`?page=9&${size}=2`);
      expect(past.body.data).toMatchObject({ items: [], total: 3 });

      // Narrowed by type; a type that is not one is the caller's mistake.
      expect((await list("?type=tcp")).body.data.total).toBe(3);
      expect((await list("?type=ping")).body.data).toMatchObject({ items: [], total: 0 });
      const badType = await list("?type=smtp");
      expect(badType.status).toBe(400);
      expect(badType.body.error.code).toBe("validation_error");
      expect((await list(`?${size}=0`)).status).toBe(400);

      // Another account sees its own only; no credentials, no list.
      const theirs = await list("", other.headers);
      expect((theirs.body.data.items as Summary[]).map((i) => i.task_id)).toEqual([others]);
      const anonymous = await list("", {});
      expect(anonymous.status).toBe(401);
      expect(anonymous.body.error.code).toBe("unauthorized");
    });
  });
});
