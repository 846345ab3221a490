import type { ChildProcess } from "node:child_process";
import { createTestDatabase, type TestDatabase } from "@vantage/testing";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { exitOf, startListening } from "../../testing/controller-process.js";
import { useDataDirs } from "../../testing/data-dirs.js";
import { freshMinute } from "../../testing/fresh-window.js";
import { planLimitsEnv } from "../../testing/plan-limits.js";

/**
 * Two controller processes on one PostgreSQL: one per-IP limit and one per-key limit hold across both, and
 * what each metered is in the table after SIGTERM.
 */
describe("limits shared by two controller processes", () => {
  let tdb: TestDatabase;
  let sql: postgres.Sql;
  const controllers: { child: ChildProcess; url: string }[] = [];
  const dataDir = useDataDirs("shared");
  const SYNC_MS = 100;
  /**
   * How long the first controller gets to reread the table after the second's counts are in it: 20 syncs.
   * 5 (500 ms) failed once in CI on Node 24 under the full suite, which leaves a process short of CPU.
   */
  const LEARN_MS = 20 * SYNC_MS;

  beforeAll(async () => {
    tdb = await createTestDatabase();
    sql = postgres(tdb.url, { max: 2, onnotice: () => {} });
    const env = {
      DATABASE_URL: tdb.url,
      VANTAGE_JWT_SECRET: "shared-limits-test-secret-0123456789abcdef",
      VANTAGE_API_FORM: "b",
      VANTAGE_ACCESS_LOG: "false",
      VANTAGE_REGISTER_LIMIT_IP: "0",
      VANTAGE_LIMIT_SYNC_MS: String(SYNC_MS),
      // The meter writes only at SIGTERM here: what the table holds afterwards is what shutdown wrote.
      VANTAGE_USAGE_FLUSH_MS: "60000",
      VANTAGE_PLAN_LIMITS: planLimitsEnv({
        anonymous: { lookups_per_minute: 10 },
        free: { lookups_per_minute: 6, lookups_per_day: 1000 },
      }),
    };
    // One at a time: the first runs the migrations.
    for (let i = 0; i < 2; i++) {
      const { child, url } = await startListening({ ...env, VANTAGE_DATA_DIR: dataDir() }, 90_000);
      controllers.push({ child, url });
    }
  }, 180_000);

  afterAll(async () => {
    for (const c of controllers) if (c.child.exitCode === null) c.child.kill("SIGKILL");
    await sql?.end({ timeout: 5 });
    await tdb?.drop();
  });

  const ip = (url: string, headers: Record<string, string> = {}) =>
    fetch(`${url}/v1/info/ip?ip=8.8.8.8`, { headers }).then(async (r) => ({
      status: r.status,
      code: r.status === 429 ? ((await r.json()) as { error: { code: string } }).error.code : undefined,
      remaining: r.headers.get("ratelimit-remaining"),
    }));
  const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
  /**
   * Waits until the shared table holds `hits` for this minute's bucket of the given scope (`ip`, or `cred`:
   * one credential): a controller has synced what it counted, however loaded the machine. A fixed pause
   * was not enough under a full suite.
   */
  const synced = async (per: "ip" | "cred", hits: number) => {
    const like = `%:minute:${per}:%`;
    const deadline = Date.now() + 15_000;
    for (;;) {
      const minute = new Date(Math.floor(Date.now() / 60_000) * 60_000);
      const [row] = await sql<{ hits: number | null }[]>`
        select max(hits) as hits from rate_limits where bucket like ${like} and window_start = ${minute}`;
      if (Number(row?.hits ?? 0) >= hits) return;
      if (Date.now() > deadline) throw new Error(`the table never held ${hits} hits for ${per}`);
      await pause(SYNC_MS / 2);
    }
  };

  it("one per-IP limit and one per-key limit across both; SIGTERM writes every metered call", async () => {
    const [a, b] = controllers as [(typeof controllers)[0], (typeof controllers)[0]];
    // Anonymous, 10 a minute for 127.0.0.1: 6 on one controller, then the other admits only the 4 left.
    await freshMinute(20_000);
    for (let i = 0; i < 6; i++) expect((await ip(a.url)).status).toBe(200);
    await synced("ip", 6);
    const onB: number[] = [];
    for (let i = 0; i < 6; i++) onB.push((await ip(b.url)).status);
    expect(onB).toEqual([200, 200, 200, 200, 429, 429]);
    // And the first controller learns the second's counts without being asked in between (it rereads the
    // table at each sync while the bucket is recent).
    await synced("ip", 10);
    await pause(LEARN_MS);
    expect(await ip(a.url)).toMatchObject({ status: 429, code: "rate_limited" });

    // One account, one key: 6 a minute for the key across both controllers.
    const reg = await fetch(`${a.url}/v1/auth/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: `shared-${Date.now()}@example.com`, password: "correct horse battery" }),
    });
    expect(reg.status).toBe(201);
    const token = ((await reg.json()) as { data: { access_token: string } }).data.access_token;
    const created = await fetch(`${b.url}/v1/account/api-keys`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
      body: JSON.stringify({ name: "shared" }),
    });
    expect(created.status).toBe(201);
    const secret = ((await created.json()) as { data: { key: string } }).data.key;
    const key = { "x-api-key": secret };
    const keyed: string[] = [];
    await freshMinute(20_000);
    for (let i = 0; i < 3; i++) keyed.push(`a${(await ip(a.url, key)).status}`);
    await synced("cred", 3);
    for (let i = 0; i < 4; i++) keyed.push(`b${(await ip(b.url, key)).status}`);
    await synced("cred", 6);
    await pause(LEARN_MS);
    keyed.push(`a${(await ip(a.url, key)).status}`);
    expect(keyed).toEqual(["a200", "a200", "a200", "b200", "b200", "b200", "b429", "a429"]);

    // SIGTERM both: the 6 answered keyed calls are in usage_daily, none lost, none twice.
    for (const c of controllers) c.child.kill("SIGTERM");
    const exits = await Promise.all(controllers.map((c) => exitOf(c.child)));
    for (const e of exits) expect(e.code).toBe(0);
    const rows = await sql<{ units: string; calls: string }[]>`
      select units, calls from usage_daily where family = 'lookups'`;
    expect(rows.map((r) => [Number(r.units), Number(r.calls)])).toEqual([[6, 6]]);
  }, 120_000);
});
