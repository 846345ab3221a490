import type { Kysely } from "kysely";
import { pino } from "pino";
import { describe, expect, it } from "vitest";
import type { Database } from "../../db/schema.js";
import { tcpResult } from "../../testing/probe-requests.js";
import { dbKinds } from "../../testing/test-app.js";
import { useTestDb } from "../../testing/use-test-db.js";
import { BackgroundWork } from "./background.js";
import { findTask, insertFinishedTasks, newTaskId, type TaskRecord } from "./repo.js";
import { ResultWriter } from "./result-writer.js";
import { publishShare, revokeShare } from "./shares-repo.js";
import { RETENTION_EVERY_MS, startTaskSweeper } from "./sweeper.js";

/**
 * How long probe tasks live: the retention sweep (`VANTAGE_PROBE_RETENTION_DAYS`, live shares kept) and an
 * account's deletion, also for a task written behind its answer after the account went.
 */

const DAY = 86_400_000;
const silent = pino({ level: "silent" });

function finished(ownerId: string | null, createdAt = new Date()): TaskRecord {
  return {
    id: newTaskId(),
    type: "tcp",
    target: "192.0.2.10:443",
    spec: { type: "tcp", params: { host: "192.0.2.10", port: 443, timeout_ms: 5000 } },
    owner_id: ownerId,
    node_ids: ["n1", "n2"],
    status: "done",
    created_at: createdAt,
    finished_at: new Date(createdAt.getTime() + 5),
    results: [tcpResult("n1", 0), tcpResult("n2", 1)],
  };
}

async function addUser(db: Kysely<Database>, id: string): Promise<void> {
  await db
    .insertInto("users")
    .values({ id, email: `${id}@example.com`, password_hash: "x" } as never)
    .execute();
}

async function resultCount(db: Kysely<Database>, taskId: string): Promise<number> {
  const row = await db
    .selectFrom("probe_results")
    .select((eb) => eb.fn.countAll<string>().as("n"))
    .where("task_id", "=", taskId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

describe.each(dbKinds)("probe task retention on %s", (kind) => {
  const fixture = useTestDb(kind);
  const kysely = () => fixture.testDb.db.kysely;

  it("deletes tasks past the retention with their results and revoked shares; keeps live shares and newer tasks", async () => {
    const db = kysely();
    const owner = `usr_ret_${kind}`;
    await addUser(db, owner);
    const now = Date.now();
    const old = finished(owner, new Date(now - 31 * DAY));
    const oldAnonymous = finished(null, new Date(now - 40 * DAY));
    const oldShared = finished(owner, new Date(now - 45 * DAY));
    const oldRevoked = finished(owner, new Date(now - 33 * DAY));
    const recent = finished(owner, new Date(now - 29 * DAY));
    await insertFinishedTasks(db, [old, oldAnonymous, oldShared, oldRevoked, recent]);
    const liveShare = await publishShare(db, oldShared.id, owner);
    await publishShare(db, oldRevoked.id, owner);
    expect(await revokeShare(db, oldRevoked.id)).toBe(true);

    // Retention 0 keeps everything.
    const keepAll = startTaskSweeper({ db, log: silent, poll: false, retentionDays: 0 });
    expect(await keepAll.expireOnce(new Date(now))).toBe(0);
    await keepAll.stop();

    const sweeper = startTaskSweeper({ db, log: silent, poll: false, retentionDays: 30 });
    expect(await sweeper.expireOnce(new Date(now))).toBe(3);
    await sweeper.stop();
    for (const gone of [old, oldAnonymous, oldRevoked]) {
      expect(await findTask(db, gone.id)).toBeUndefined();
      expect(await resultCount(db, gone.id)).toBe(0);
    }
    expect((await findTask(db, recent.id))?.results).toHaveLength(2);
    expect((await findTask(db, oldShared.id))?.results).toHaveLength(2);
    const shares = await db
      .selectFrom("probe_shares")
      .select(["id", "task_id"])
      .where("owner_id", "=", owner)
      .execute();
    expect(shares).toEqual([{ id: liveShare.id, task_id: oldShared.id }]);

    // Once its link is revoked, the shared task goes at the next look.
    expect(await revokeShare(db, oldShared.id)).toBe(true);
    const again = startTaskSweeper({ db, log: silent, poll: false, retentionDays: 30 });
    expect(await again.expireOnce(new Date(now))).toBe(1);
    await again.stop();
    expect(await findTask(db, oldShared.id)).toBeUndefined();
  });

  it("the sweep's rounds look for expired tasks once a minute, not at every round", async () => {
    const db = kysely();
    const now = Date.now();
    const sweeper = startTaskSweeper({ db, log: silent, poll: false, retentionDays: 7 });
    const first = finished(null, new Date(now - 8 * DAY));
    await insertFinishedTasks(db, [first]);
    await sweeper.runOnce(new Date(now));
    expect(await findTask(db, first.id)).toBeUndefined();
    const second = finished(null, new Date(now - 8 * DAY));
    await insertFinishedTasks(db, [second]);
    await sweeper.runOnce(new Date(now + 5000));
    expect(await findTask(db, second.id)).toBeDefined();
    await sweeper.runOnce(new Date(now + RETENTION_EVERY_MS));
    expect(await findTask(db, second.id)).toBeUndefined();
    await sweeper.stop();
  });

  it("an account's deletion takes its tasks; a task written after it is left out, the rest of its batch stored", async () => {
    const db = kysely();
    const owner = `usr_gone_${kind}`;
    const other = `usr_stays_${kind}`;
    await addUser(db, owner);
    await addUser(db, other);
    const before = finished(owner);
    await insertFinishedTasks(db, [before]);
    await publishShare(db, before.id, owner);
    await db.deleteFrom("users").where("id", "=", owner).execute();
    expect(await findTask(db, before.id)).toBeUndefined();
    expect(await db.selectFrom("probe_shares").selectAll().where("owner_id", "=", owner).execute()).toEqual(
      [],
    );

    // Form B writes behind the answer: a task of the deleted account arrives in a batch with others.
    const lines: { level: number }[] = [];
    const log = pino({ level: "info" }, { write: (s: string) => void lines.push(JSON.parse(s)) });
    const background = new BackgroundWork();
    const writer = new ResultWriter(db, background, log, { flushDelayMs: 5 });
    const late = finished(owner);
    const kept = [finished(other), finished(null)];
    writer.write(late);
    for (const t of kept) writer.write(t);
    await background.drain();
    expect(writer.backlog).toBe(0);
    expect(await findTask(db, late.id)).toBeUndefined();
    expect(await resultCount(db, late.id)).toBe(0);
    for (const t of kept) expect((await findTask(db, t.id))?.results).toHaveLength(2);
    expect(lines.filter((l) => l.level >= 40)).toEqual([]);
  });
});

describe("an account deleted while its task is being written (PostgreSQL)", () => {
  const fixture = useTestDb("postgres");

  it("the write waits for the deletion, is refused by the owner's key, and is written again without the task", async () => {
    const db = fixture.testDb.db.kysely;
    const owner = "usr_race";
    await addUser(db, owner);
    let commit!: () => void;
    let deleted!: () => void;
    const deletedNow = new Promise<void>((r) => {
      deleted = r;
    });
    const deletion = db.transaction().execute(async (tx) => {
      await tx.deleteFrom("users").where("id", "=", owner).execute();
      deleted();
      await new Promise<void>((r) => {
        commit = r;
      });
    });
    await deletedNow;
    const lines: { level: number }[] = [];
    const log = pino({ level: "info" }, { write: (s: string) => void lines.push(JSON.parse(s)) });
    const background = new BackgroundWork();
    const writer = new ResultWriter(db, background, log, { flushDelayMs: 0 });
    const late = finished(owner);
    const anonymous = finished(null);
    writer.write(late);
    writer.write(anonymous);
    // The statement saw the user (the deletion is not committed) and now waits on the row's lock.
    await new Promise((r) => setTimeout(r, 300));
    expect(writer.backlog).toBe(2);
    commit();
    await deletion;
    await background.drain();
    expect(writer.backlog).toBe(0);
    expect(await findTask(db, late.id)).toBeUndefined();
    expect((await findTask(db, anonymous.id))?.results).toHaveLength(2);
    expect(lines.filter((l) => l.level >= 40)).toEqual([]);
  });
});
