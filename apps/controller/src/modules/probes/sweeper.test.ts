import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { LEASE_TTL_MS, startLease } from "../../db/lease.js";
import { dbKinds } from "../../testing/test-app.js";
import { until } from "../../testing/until.js";
import { useTestDb } from "../../testing/use-test-db.js";
import { findTask, insertTask, newTaskId } from "./repo.js";
import { startTaskSweeper } from "./sweeper.js";

/** Form A tasks of a controller that died are failed soon after their deadline, never those of a live one. */
describe.each(dbKinds)("abandoned-task sweep by controller lease on %s", (kind) => {
  const db = useTestDb(kind);

  // The default lifetime and a short one (VANTAGE_CONTROLLER_LEASE_MS).
  it.each([LEASE_TTL_MS, 4000])(
    "with leases of %i ms, fails a task past its deadline whose controller's lease ran out; leaves live controllers' tasks",
    async (ttl) => {
      const kysely = db.testDb.db.kysely;
      const now = Date.now();
      const at = (ms: number) => new Date(now + ms);
      await kysely
        .insertInto("controller_leases")
        .values([
          { id: `ctl_live_${ttl}`, renewed_at: at(-2000) },
          { id: `ctl_dead_${ttl}`, renewed_at: at(-ttl - 5000) },
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
      await task(ids.dead, `ctl_dead_${ttl}`, -10_000);
      await task(ids.live, `ctl_live_${ttl}`, -10_000);
      await task(ids.notYet, `ctl_dead_${ttl}`, 60_000);
      await task(ids.gone, `ctl_never_seen_${ttl}`, -1000);

      const sweeper = startTaskSweeper({
        db: kysely,
        log: pino({ level: "silent" }),
        poll: false,
        leaseTtlMs: ttl,
      });
      // Leases are judged only after the sweeper has reached the database for a whole lease lifetime.
      expect(await sweeper.runOnce(at(0))).toBe(0);
      expect(await sweeper.runOnce(at(ttl - 1))).toBe(0);
      // Seen from then on, the dead controller's lease has aged too; the live one is renewed meanwhile.
      await kysely
        .updateTable("controller_leases")
        .set({ renewed_at: at(ttl - 500) })
        .where("id", "=", `ctl_live_${ttl}`)
        .execute();
      expect(await sweeper.runOnce(at(ttl))).toBe(2);
      await sweeper.stop();
      const status = async (id: string) => (await findTask(kysely, id))?.status;
      expect(await status(ids.dead)).toBe("failed");
      expect(await status(ids.gone)).toBe("failed");
      expect(await status(ids.live)).toBe("running");
      expect(await status(ids.notYet)).toBe("running");
    },
  );

  it("a controller renews its lease every quarter of its lifetime, and stopping removes it", async () => {
    const kysely = db.testDb.db.kysely;
    const id = `ctl_renew_${kind}`;
    const renewed = async () =>
      (
        await kysely
          .selectFrom("controller_leases")
          .select("renewed_at")
          .where("id", "=", id)
          .executeTakeFirst()
      )?.renewed_at;
    const lease = startLease(db.testDb.db, id, pino({ level: "silent" }), 2000);
    await until("lease written", async () => (await renewed()) !== undefined);
    const first = new Date((await renewed())!).getTime();
    // Every 500 ms: renewed again within 4 s (a 20 s lease would wait 5 s).
    await until("lease renewed", async () => new Date((await renewed())!).getTime() > first, 4000);
    await lease.stop();
    expect(await renewed()).toBeUndefined();
  });
});
