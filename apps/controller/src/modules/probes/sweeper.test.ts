import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { LEASE_TTL_MS } from "../../db/lease.js";
import { dbKinds } from "../../testing/test-app.js";
import { useTestDb } from "../../testing/use-test-db.js";
import { findTask, insertTask, newTaskId } from "./repo.js";
import { startTaskSweeper } from "./sweeper.js";

/** Form A tasks of a controller that died are failed soon after their deadline, never those of a live one. */
describe.each(dbKinds)("abandoned-task sweep by controller lease on %s", (kind) => {
  const db = useTestDb(kind);

  it("fails a task past its deadline whose controller's lease ran out; leaves live controllers' tasks", async () => {
    const kysely = db.testDb.db.kysely;
    const now = Date.now();
    const at = (ms: number) => new Date(now + ms);
    await kysely
      .insertInto("controller_leases")
      .values([
        { id: "ctl_live", renewed_at: at(-2000) },
        { id: "ctl_dead", renewed_at: at(-LEASE_TTL_MS - 5000) },
      ])
      .execute();
    const base = { type: "tcp", target: "example.com:443", spec: {}, nodeIds: ["n1"], ownerId: null };
    const ids = { dead: newTaskId(), live: newTaskId(), notYet: newTaskId(), gone: newTaskId() };
    const task = (id: string, controllerId: string, deadlineMs: number) =>
      insertTask(
        kysely,
        { ...base, id, createdAt: at(-30_000), deadlineAt: at(deadlineMs), controllerId },
        "running",
      );
    await task(ids.dead, "ctl_dead", -10_000);
    await task(ids.live, "ctl_live", -10_000);
    await task(ids.notYet, "ctl_dead", 60_000);
    await task(ids.gone, "ctl_never_seen", -1000);

    const sweeper = startTaskSweeper({ db: kysely, log: pino({ level: "silent" }), poll: false });
    // Leases are judged only after the sweeper has reached the database for a whole lease lifetime.
    expect(await sweeper.runOnce(at(0))).toBe(0);
    expect(await sweeper.runOnce(at(LEASE_TTL_MS - 1))).toBe(0);
    // Seen from then on, the dead controller's lease has aged too; the live one is renewed meanwhile.
    await kysely
      .updateTable("controller_leases")
      .set({ renewed_at: at(LEASE_TTL_MS - 500) })
      .where("id", "=", "ctl_live")
      .execute();
    expect(await sweeper.runOnce(at(LEASE_TTL_MS))).toBe(2);
    await sweeper.stop();
    const status = async (id: string) => (await findTask(kysely, id))?.status;
    expect(await status(ids.dead)).toBe("failed");
    expect(await status(ids.gone)).toBe("failed");
    expect(await status(ids.live)).toBe("running");
    expect(await status(ids.notYet)).toBe("running");
  });
});
