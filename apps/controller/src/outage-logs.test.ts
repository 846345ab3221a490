import { listeningOn, type PostgresCluster, startPostgresCluster } from "@vantage/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { exitOf, startController } from "./testing/controller-process.js";

/**
 * What a controller writes to its log while PostgreSQL is away, as a real process (every role) on a
 * PostgreSQL cluster of the test's own, stopped under traffic and started again. The outage is one warning
 * when it begins and one line when it ends; the requests it refuses and the background rounds that fail
 * meanwhile add short debug lines, never a stack (each refused request once logged its whole stack at
 * warn: 7–11 KB/s per controller).
 */
describe("a database outage in the log", () => {
  let cluster: PostgresCluster;
  beforeAll(async () => {
    cluster = await startPostgresCluster();
  });
  afterAll(async () => {
    await cluster?.destroy();
  });

  it("warns once when the database goes away and says once that it is back; requests add no stack", async () => {
    const child = startController({
      DATABASE_URL: cluster.url,
      PORT: "0",
      VANTAGE_LOG_LEVEL: "debug",
      VANTAGE_ACCESS_LOG: "false",
      VANTAGE_SCHEDULER_TICK_MS: "200",
    });
    const exited = exitOf(child);
    try {
      // A start takes seconds under tsx, and much longer on a machine busy with other test files.
      const { url: api, log } = await listeningOn(child, { timeoutMs: 90_000 });
      await log.waitFor((l) => l.msg === "controller running", 90_000);
      const traffic = async () => {
        const answers = [
          await fetch(`${api}/readyz`),
          await fetch(`${api}/v1/probe/tasks/task_mhb0v3k2x9a1b2c3d4e5f6a7`),
          await fetch(`${api}/v1/auth/register`, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({
              email: `o-${Math.random()}@example.com`,
              password: "correct horse battery",
            }),
          }),
        ];
        for (const a of answers) await a.text();
        return answers.map((a) => a.status);
      };
      expect((await traffic())[0]).toBe(200);

      const from = log.lines.length;
      await cluster.stop();
      // Past the first refusals, for several rounds of every background loop.
      let refused = 0;
      const end = Date.now() + 6000;
      while (Date.now() < end) {
        const statuses = await traffic();
        expect(statuses).toEqual([503, 503, 503]);
        refused += statuses.length;
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(refused).toBeGreaterThan(30);
      await cluster.start();
      const back = await log.waitFor((l) => l.msg === "database answers again", 60_000);
      expect(back.level).toBe(30);

      const during = log.lines.slice(from);
      const wentAway = during.filter((l) => String(l.msg).startsWith("database unavailable: requests"));
      expect(wentAway).toHaveLength(1);
      expect(wentAway[0]!.level).toBe(40);
      expect(during.filter((l) => l.msg === "database answers again")).toHaveLength(1);

      // Each refused request: at most one debug line, short, without an error object or a stack.
      const byRequests = during.filter((l) => l.request_id !== undefined);
      expect(byRequests.length).toBeGreaterThan(0);
      expect(byRequests.length).toBeLessThanOrEqual(refused);
      for (const l of byRequests) {
        expect(l.level, String(l.msg)).toBe(20);
        expect(l.err).toBeUndefined();
        expect(JSON.stringify(l).length).toBeLessThan(500);
      }
      expect(byRequests.map((l) => l.msg)).toContain("database unavailable: answered 503");
      expect(byRequests.map((l) => l.msg)).toContain("readiness: database unreachable");

      // The background rounds that failed meanwhile (sweeps, monitor claims, alerts, the outbox): debug,
      // with the database's error in one line.
      const rounds = during.filter((l) =>
        /^(monitor claim failed|sweeping probe tasks|alert events or deliveries failed|delivery outbox poll)/.test(
          String(l.msg),
        ),
      );
      expect(rounds.length).toBeGreaterThan(0);
      for (const r of rounds) {
        expect(r.level, String(r.msg)).toBe(20);
        expect(r.err).toBeUndefined();
        expect(typeof r.db_error).toBe("string");
      }

      // Back to normal.
      let statuses = await traffic();
      const deadline = Date.now() + 30_000;
      while (statuses.join() !== "200,404,201" && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 200));
        statuses = await traffic();
      }
      expect(statuses).toEqual([200, 404, 201]);
    } finally {
      child.kill("SIGTERM");
      await exited;
    }
  }, 240_000);
});
