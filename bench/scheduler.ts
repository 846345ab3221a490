import { sql as q } from "kysely";
import { connectDb } from "../apps/controller/src/db/connect.js";
import { startCluster } from "../apps/controller/src/e2e/cluster.js";
import { printTable, startServer } from "./lib/run.js";

/**
 * `pnpm bench:scheduler`: sustained scheduled runs with 10,000, 50,000 and 100,000 monitors at a 60 s
 * interval (BENCH_MONITORS to change the list), TCP monitors on a loopback listener (its own process), run
 * over real NATS by three agent processes, BENCH_LOCATIONS nodes per run (default 1; `config.node_count`,
 * spread over the agents' countries, issue #29), claimed by one controller process (the scheduler role) on
 * PostgreSQL. Per scale: monitors inserted with their slots spread over the minute, a
 * warm-up of BENCH_WARMUP seconds (default 20), then BENCH_SECONDS (default 60) measured:
 * - runs/s stored (slots with `monitor_runs` rows in the window) against the due rate (N / 60), node runs
 *   whose target check failed, and node-level errors (a busy or silent agent: left out of the run, counted
 *   by the controller);
 * - schedule lag (dispatch − slot) p50/p99 as the controller reports it (its last 10,000 runs, read from
 *   /metrics every 5 s: the median of the p50s, the worst p99);
 * - the `monitor_runs` table's growth in the window, per run and extrapolated to a day.
 */
const scales = (process.env.BENCH_MONITORS ?? "10000,50000,100000").split(",").map(Number);
const windowS = Number(process.env.BENCH_SECONDS ?? 60);
const warmupS = Number(process.env.BENCH_WARMUP ?? 20);
const locations = Number(process.env.BENCH_LOCATIONS ?? 1);
const agents = [
  { id: "sch-fra", country: "DE", region: "eu-central", provider: "hetzner" },
  { id: "sch-nyc", country: "US", region: "us-east", provider: "digitalocean" },
  { id: "sch-tyo", country: "JP", region: "ap-northeast", provider: "aws" },
];

const [cluster, target] = await Promise.all([
  startCluster(agents),
  startServer(new URL("./servers/tcp-target.ts", import.meta.url).pathname),
]);
const controller = await cluster.startController({
  VANTAGE_API_FORM: "b",
  VANTAGE_ACCESS_LOG: "false",
  VANTAGE_LOG_LEVEL: process.env.VANTAGE_LOG_LEVEL ?? "warn",
  VANTAGE_SCHEDULER_TICK_MS: "100",
  VANTAGE_SCHEDULER_BATCH: "2000",
});
const db = await connectDb({ databaseUrl: cluster.db.url, dataDir: "unused", maxConnections: 2 });
// biome-ignore lint/suspicious/noExplicitAny: rows of ad-hoc counting queries
const sql = async (strings: TemplateStringsArray, ...values: unknown[]): Promise<any[]> =>
  (await q(strings, ...values).execute(db.kysely)).rows;
const metric = async (name: string, label = "") => {
  const text = await (await fetch(`${controller.url}/metrics`)).text();
  const line = text.split("\n").find((l) => l.startsWith(`${name}${label} `));
  return Number(line?.split(" ")[1] ?? Number.NaN);
};
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;

const rows: (string | number)[][] = [];
try {
  await cluster.waitForNodes(
    controller.url,
    agents.map((a) => a.id),
  );
  await sql`insert into users (id, email, password_hash) values ('usr_bench', 'bench@example.com', 'x')`;
  for (const n of scales) {
    await sql`delete from monitors`;
    await sql`truncate monitor_runs`;
    await sql`
      insert into monitors (id, owner_id, name, type, target, config, interval_s, status, next_run_at)
      select 'mon_bench_' || i, 'usr_bench', 'bench ' || i, 'tcp', ${`127.0.0.1:${target.port}`},
             cast(${JSON.stringify({ node_count: locations })} as jsonb), 60,
             'active', now() + make_interval(secs => ${warmupS / 2} + (i * 60.0 / ${n}))
      from generate_series(1, ${n}) as i`;
    await sql`analyze monitors`;
    await new Promise((r) => setTimeout(r, warmupS * 1000));
    const from = new Date();
    const nodeErrorsBefore = await metric("vantage_monitor_node_errors_total");
    const sizeBefore = Number((await sql`select pg_total_relation_size('monitor_runs') as b`)[0]?.b);
    const p50s: number[] = [];
    const p99s: number[] = [];
    for (let t = 0; t < windowS; t += 5) {
      await new Promise((r) => setTimeout(r, 5000));
      p50s.push(await metric("vantage_monitor_schedule_lag_seconds", '{quantile="0.5"}'));
      p99s.push(await metric("vantage_monitor_schedule_lag_seconds", '{quantile="0.99"}'));
    }
    const to = new Date();
    const nodeErrors = (await metric("vantage_monitor_node_errors_total")) - nodeErrorsBefore;
    // Runs still on their way when the window closed are written within a second.
    await new Promise((r) => setTimeout(r, 2000));
    const stored = Number(
      (
        await sql`select count(distinct (monitor_seq, slot)) as n from monitor_runs
                  where slot >= ${from} and slot < ${to}`
      )[0]?.n,
    );
    const failed = Number(
      (
        await sql`select count(*) as n from monitor_runs where slot >= ${from} and slot < ${to} and not success`
      )[0]?.n,
    );
    const errors = (
      await sql`select error_code, count(*) as n from monitor_runs
                where slot >= ${from} and slot < ${to} and not success group by 1 order by 2 desc limit 2`
    )
      .map((r) => `${r.error_code} ${r.n}`)
      .join(", ");
    const sizeAfter = Number((await sql`select pg_total_relation_size('monitor_runs') as b`)[0]?.b);
    const seconds = (to.getTime() - from.getTime()) / 1000;
    const rate = stored / seconds;
    const bytesPerRun = (sizeAfter - sizeBefore) / Math.max(1, stored);
    rows.push([
      n.toLocaleString("en"),
      locations,
      (n / 60).toFixed(0),
      rate.toFixed(0),
      failed ? `${failed} (${errors})` : 0,
      nodeErrors,
      (median(p50s) * 1000).toFixed(0),
      (Math.max(...p99s) * 1000).toFixed(0),
      bytesPerRun.toFixed(0),
      ((bytesPerRun * (n / 60) * 86_400) / 1024 ** 3).toFixed(1),
    ]);
    process.stderr.write(`${n} monitors measured\n`);
  }
} finally {
  await sql`delete from monitors`.catch(() => {});
  await db.close();
  await controller.stop();
  await target.stop();
  await cluster.stop();
}
printTable(
  [
    "monitors (60 s)",
    "locations/run",
    "due runs/s",
    "stored runs/s",
    "failed node runs (top causes)",
    "node-level errors (left out)",
    "lag p50 ms",
    "lag p99 ms (worst 5 s)",
    "bytes/run (table + indexes)",
    "GiB/day of raw runs",
  ],
  rows,
);
process.exit(0);
