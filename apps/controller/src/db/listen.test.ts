import { describe, expect, it } from "vitest";
import { dbKinds } from "../testing/test-app.js";
import { until } from "../testing/until.js";
import { usePgCluster } from "../testing/use-pg-cluster.js";
import { useTestDb } from "../testing/use-test-db.js";
import { notify } from "./notify.js";

describe.each(dbKinds)("Db.listen and notify on %s", (kind) => {
  const fixture = useTestDb(kind);

  it("delivers each payload to every handler of the channel until its own close", async () => {
    const { db } = fixture.testDb;
    const first: string[] = [];
    const second: string[] = [];
    const other: string[] = [];
    const a = await db.listen("vt_listen_fanout", (p) => first.push(p));
    const b = await db.listen("vt_listen_fanout", (p) => second.push(p));
    const c = await db.listen("vt_listen_other", (p) => other.push(p));
    await notify(db.kysely, "vt_listen_fanout", "one");
    await until("both handlers heard it", () => first.includes("one") && second.includes("one"), 3000, 20);

    await a.close();
    await notify(db.kysely, "vt_listen_fanout", "two");
    await until("the open handler heard it", () => second.includes("two"), 3000, 20);
    // One NOTIFY reaches every handler in the same turn: had the closed one still been there, it would have it.
    expect(first).toEqual(["one"]);
    expect(second).toEqual(["one", "two"]);
    expect(other).toEqual([]);
    await b.close();
    await c.close();
  });

  it("inside a transaction: heard at commit, never on rollback", async () => {
    const { db } = fixture.testDb;
    const heard: string[] = [];
    const l = await db.listen("vt_listen_tx", (p) => heard.push(p));
    await expect(
      db.kysely.transaction().execute(async (tx) => {
        await notify(tx, "vt_listen_tx", "rolled back");
        throw new Error("roll back");
      }),
    ).rejects.toThrow("roll back");
    await db.kysely.transaction().execute(async (tx) => {
      await notify(tx, "vt_listen_tx", "committed");
    });
    await until("the committed one heard", () => heard.includes("committed"), 3000, 20);
    expect(heard).toEqual(["committed"]);
    await l.close();
  });

  it("a handler that throws does not keep the others from their messages", async () => {
    const { db } = fixture.testDb;
    const heard: string[] = [];
    const bad = await db.listen("vt_listen_throw", () => {
      throw new Error("handler bug");
    });
    const good = await db.listen("vt_listen_throw", (p) => heard.push(p));
    await notify(db.kysely, "vt_listen_throw", "x");
    await notify(db.kysely, "vt_listen_throw", "y");
    await until("both heard", () => heard.length === 2, 3000, 20);
    expect(heard).toEqual(["x", "y"]);
    await bad.close();
    await good.close();
  });

  it("refuses a channel that is not a plain lower-case identifier (PGlite would run it as SQL)", async () => {
    const { db } = fixture.testDb;
    for (const channel of ['x"; drop table users; --', "Mixed", "", "a-b", "x".repeat(64)]) {
      await expect(db.listen(channel, () => {})).rejects.toThrow(/invalid channel name/);
    }
  });
});

describe("Db.listen while PostgreSQL stops and starts", () => {
  const pg = usePgCluster();

  it("comes back after a restart by itself, runs onListen, and hears what is sent afterwards", async () => {
    const heard: string[] = [];
    let listens = 0;
    const l = await pg.db.listen(
      "vt_listen_restart",
      (p) => heard.push(p),
      () => listens++,
    );
    expect(listens).toBe(1);
    await pg.cluster.stop();
    await pg.cluster.start();
    await until("listening again", () => listens === 2, 20_000, 50);
    await until(
      "a NOTIFY after the restart heard",
      async () => {
        await notify(pg.db.kysely, "vt_listen_restart", "after").catch(() => {});
        return heard.includes("after");
      },
      20_000,
      200,
    );
    await l.close();
  }, 60_000);

  it("resolves while PostgreSQL is away (no crash, no rejection) and listens once it is back", async () => {
    const heard: string[] = [];
    let listens = 0;
    await pg.cluster.stop();
    try {
      const l = await pg.db.listen(
        "vt_listen_outage",
        (p) => heard.push(p),
        () => listens++,
      );
      expect(listens).toBe(0);
      await pg.cluster.start();
      await until("listening once the database is back", () => listens >= 1, 20_000, 50);
      await until(
        "a NOTIFY heard",
        async () => {
          await notify(pg.db.kysely, "vt_listen_outage", "back").catch(() => {});
          return heard.includes("back");
        },
        20_000,
        200,
      );
      await l.close();
    } finally {
      await pg.cluster.start().catch(() => {});
    }
  }, 60_000);
});
