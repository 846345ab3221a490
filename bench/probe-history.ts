import { sql } from "kysely";
import { deleteExpiredTasks } from "../apps/controller/src/modules/probes/repo.js";
import { RETENTION_BATCH } from "../apps/controller/src/modules/probes/sweeper.js";
import { startApiController } from "./lib/api-controller.js";
import { printTable } from "./lib/run.js";

/**
 * `pnpm bench:probe-history`: an account's probe tasks and their retention, one controller (api role) on
 * PostgreSQL, over HTTP on loopback.
 * 1. BENCH_TASKS (default 300,000) finished tasks of three results each over the last 60 days: a third of them
 *    one account's, a third 1,000 other accounts', a third anonymous; 2 % of the account's shared, 1 % shared
 *    and revoked.
 * 2. `GET /v1/probe/tasks` for that account (about BENCH_TASKS / 3 tasks): the first page, a deep page and
 *    a type filter, BENCH_READS (default 50) each, p50/p99 ms.
 * 3. The retention sweep's statement (`deleteExpiredTasks`, RETENTION_BATCH tasks) run until caught up at
 *    30 days: ms per statement p50/p99 and tasks per second; then the same on a fresh copy of the shares
 *    without their task index (`probe_shares_task_idx`, migration 20261202_1100), a few statements.
 * 4. The account deleted (its tasks by the owner key's cascade): ms.
 */
const tasksWanted = Number(process.env.BENCH_TASKS ?? 300_000);
const reads = Number(process.env.BENCH_READS ?? 50);
const DAY_MS = 86_400_000;

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;
const stats = (times: number[]) => {
  const sorted = [...times].sort((a, b) => a - b);
  return [percentile(sorted, 50).toFixed(2), percentile(sorted, 99).toFixed(2)];
};

const controller = await startApiController("history");
const { url, token, owner } = controller;
const k = controller.db;
// A thousand other accounts own a third of the tasks, as on a deployment with many users (the planner's
// estimate of one account's share of the table depends on it).
await sql`
  insert into users (id, email, password_hash)
  select 'usr_bench_' || i, 'bench-' || i || '@example.com', 'x' from generate_series(0, 999) as g(i)`.execute(
  k,
);

/** `n` tasks from `from` on, spread evenly over 60 days back from now, every third one the account's. */
async function insertTasks(prefix: string, n: number): Promise<void> {
  const now = Date.now();
  for (let from = 0; from < n; from += 50_000) {
    const to = Math.min(n, from + 50_000) - 1;
    await sql`
      insert into probe_tasks (id, type, target, spec, status, node_ids, owner_id, created_at, finished_at)
      select ${prefix} || i, case when i % 2 = 0 then 'tcp' else 'ping' end, '192.0.2.' || (i % 250) || ':443',
        '{"type":"tcp"}', 'done', '["n1","n2","n3"]',
        case i % 3 when 0 then ${owner} when 1 then 'usr_bench_' || (i % 1000) end,
        to_timestamp((cast(${now} as float8) - (i / cast(${n} as float8)) * cast(${60 * DAY_MS} as float8)) / 1000),
        to_timestamp((cast(${now} as float8) - (i / cast(${n} as float8)) * cast(${60 * DAY_MS} as float8)) / 1000 + 0.2)
      from generate_series(cast(${from} as int), cast(${to} as int)) as g(i)`.execute(k);
    await sql`
      insert into probe_results (task_id, node_id, node_name, position, success, latency_ms, detail)
      select ${prefix} || i, 'n' || p, 'Node ' || p, p - 1, p <> 3, 12.5, '{"connect_ms":12.5}'
      from generate_series(cast(${from} as int), cast(${to} as int)) as g(i), generate_series(1, 3) as q(p)`.execute(
      k,
    );
    await sql`
      insert into probe_shares (id, task_id, owner_id, revoked_at)
      select 'shr_' || ${prefix} || i, ${prefix} || i, ${owner}, case when i % 300 = 150 then now() end
      from generate_series(cast(${from} as int), cast(${to} as int)) as g(i) where i % 3 = 0 and i % 150 = 0`.execute(
      k,
    );
  }
  // As autovacuum leaves them in a while: statistics and the visibility map (index-only counts).
  await sql`vacuum analyze probe_tasks, probe_results, probe_shares`.execute(k);
}

const seeded = performance.now();
await insertTasks("task_b", tasksWanted);
const seedS = (performance.now() - seeded) / 1000;

// 2. The account's list.
async function timeReads(query: string): Promise<{ times: number[]; total: number }> {
  const times: number[] = [];
  let total = 0;
  for (let i = 0; i < reads; i++) {
    const t0 = performance.now();
    const res = await fetch(`${url}/v1/probe/tasks${query}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    const body = (await res.json()) as { data: { total: number } };
    times.push(performance.now() - t0);
    if (res.status !== 200) throw new Error(`GET /v1/probe/tasks${query}: ${res.status}`);
    total = body.data.total;
  }
  return { times, total };
}
const firstPage = await timeReads("");
const deepPage = await timeReads("?page=200&per_page=100");
const byType = await timeReads("?type=ping");

// 3. The retention at 30 days, statement by statement until caught up.
const cut = new Date(Date.now() - 30 * DAY_MS);
const batchTimes: number[] = [];
let expired = 0;
const sweepStart = performance.now();
for (;;) {
  const t0 = performance.now();
  const n = await deleteExpiredTasks(k, cut, RETENTION_BATCH);
  batchTimes.push(performance.now() - t0);
  expired += n;
  if (n < RETENTION_BATCH) break;
}
const sweepS = (performance.now() - sweepStart) / 1000;
const kept = Number(
  (await sql<{ n: string }>`select count(*) as n from probe_shares where task_id like 'task_b%'`.execute(k))
    .rows[0]?.n,
);

// The same statement without the shares' task index, on a fresh set (a few statements are enough to see it).
await sql`drop index probe_shares_task_idx`.execute(k);
await insertTasks("task_c", Math.min(tasksWanted, 60_000));
const noIndexTimes: number[] = [];
for (let i = 0; i < 5; i++) {
  const t0 = performance.now();
  const n = await deleteExpiredTasks(k, cut, RETENTION_BATCH);
  noIndexTimes.push(performance.now() - t0);
  if (n < RETENTION_BATCH) break;
}
await sql`create index probe_shares_task_idx on probe_shares (task_id)`.execute(k);

// 4. The account's deletion: its tasks go by the owner key's cascade.
const owned = Number(
  (await sql<{ n: string }>`select count(*) as n from probe_tasks where owner_id = ${owner}`.execute(k))
    .rows[0]?.n,
);
const d0 = performance.now();
await sql`delete from users where id = ${owner}`.execute(k);
const deleteMs = performance.now() - d0;

await controller.stop();

printTable(
  ["measure", "value"],
  [
    [
      "tasks seeded (3 results each; a third one account's, a third 1,000 others')",
      `${tasksWanted.toLocaleString("en")} in ${seedS.toFixed(1)} s`,
    ],
    [
      `GET /v1/probe/tasks, first page of 20 (total ${firstPage.total.toLocaleString("en")}): p50 / p99 ms`,
      stats(firstPage.times).join(" / "),
    ],
    [
      "GET /v1/probe/tasks?page=200&per_page=100 (a deep page): p50 / p99 ms",
      stats(deepPage.times).join(" / "),
    ],
    [
      `GET /v1/probe/tasks?type=ping (total ${byType.total.toLocaleString("en")}): p50 / p99 ms`,
      stats(byType.times).join(" / "),
    ],
    [
      `retention at 30 days: ${expired.toLocaleString("en")} tasks in ${batchTimes.length} statements of ${RETENTION_BATCH}`,
      `${sweepS.toFixed(1)} s, ${Math.round(expired / sweepS).toLocaleString("en")} tasks/s`,
    ],
    ["  ms per statement: p50 / p99", stats(batchTimes).join(" / ")],
    ["  shares kept (live ones of expired tasks, and those of newer tasks)", kept.toLocaleString("en")],
    ["  without the shares' task index: ms per statement p50 / p99", stats(noIndexTimes).join(" / ")],
    [`the account deleted with its ${owned.toLocaleString("en")} tasks (cascade): ms`, deleteMs.toFixed(0)],
  ],
);
