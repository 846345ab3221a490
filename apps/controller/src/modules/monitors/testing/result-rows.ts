import { pino } from "pino";
import { beforeAll, beforeEach } from "vitest";
import { defaultPlans } from "../../../lib/plans.js";
import { newUser, type TestUser } from "../../../testing/accounts.js";
import { insertMonitor } from "../../../testing/monitor-rows.js";
import type { DbKind, TestApp } from "../../../testing/test-app.js";
import type { TestDbFixture } from "../../../testing/use-test-db.js";
import type { MonitorsContext } from "../context.js";

/** What the monitor results' test files share: times, and runs and roll-ups written and read in the tables. */

export const MIN = 60_000;
export const HOUR = 60 * MIN;
export const DAY = 24 * HOUR;
/** A UTC midnight for the roll-up scenarios. */
export const D = Date.UTC(2026, 0, 5);
export const iso = (t: number) => new Date(t).toISOString();

/** A node's outcome: a latency passes, `false` fails. */
export type Node = number | false;

/**
 * For a `describe` block over one database: a Form A app `t` with a user `owner` (made before the block's
 * tests), the monitors context `ctx` a roll-up job runs in, and the rows' helpers. The roll-up progress is
 * global, so every test starts from empty results. Read `t`, `owner` and `ctx` inside hooks and tests only.
 */
export function useResultRows(db: TestDbFixture, kind: DbKind) {
  let n = 0;

  /** A monitor row that no scheduler picks (due in 2100); returns its id and seq. */
  async function addMonitor(ownerId = rows.owner.userId, extra: { state?: "down"; changedAt?: Date } = {}) {
    const id = `mon_res_${kind}_${++n}`;
    const seq = await insertMonitor(rows.t.db.kysely, id, ownerId, {
      interval_s: 30,
      ...(extra.state ? { state: extra.state, state_changed_at: extra.changedAt ?? null } : {}),
    });
    return { id, seq };
  }

  /** One run: node `n<i>` per entry. */
  async function addRun(seq: string, slot: number, nodes: Node[]) {
    await rows.t.db.kysely
      .insertInto("monitor_runs")
      .values(
        nodes.map((v, i) => ({
          monitor_seq: seq,
          slot: new Date(slot),
          node_id: `n${i}`,
          success: v !== false,
          latency_ms: v === false ? null : v,
          error_code: v === false ? "connect_timeout" : null,
        })),
      )
      .execute();
  }

  async function buckets(seq?: string) {
    let q = rows.t.db.kysely.selectFrom("monitor_rollups").selectAll();
    if (seq) q = q.where("monitor_seq", "=", seq);
    const found = await q.orderBy("monitor_seq").orderBy("period").orderBy("bucket").execute();
    return found.map((r) => ({
      ...r,
      monitor_seq: String(r.monitor_seq),
      bucket: iso(new Date(r.bucket).getTime()),
    }));
  }

  const bucket = async (seq: string, period: string, at: number) =>
    (await buckets(seq)).find((b) => b.period === period && b.bucket === iso(at));

  const rows = {
    t: undefined as unknown as TestApp,
    owner: undefined as unknown as TestUser,
    ctx: undefined as unknown as MonitorsContext,
    addMonitor,
    addRun,
    buckets,
    bucket,
  };

  beforeAll(async () => {
    rows.t = db.app("a");
    rows.owner = await newUser(rows.t, "results");
    rows.ctx = {
      db: rows.t.db.kysely,
      log: pino({ level: "silent" }),
      form: "a",
      plans: defaultPlans,
      allowPrivateTargets: false,
      now: Date.now,
    };
  });

  // The roll-up progress is global: every test starts from empty results.
  beforeEach(async () => {
    await rows.t.db.kysely.deleteFrom("monitor_runs").execute();
    await rows.t.db.kysely.deleteFrom("monitor_rollups").execute();
  });

  return rows;
}
