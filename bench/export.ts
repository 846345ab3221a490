import { sql } from "kysely";
import { SecretKey } from "../apps/controller/src/lib/secret-box.js";
import { startApiController } from "./lib/api-controller.js";
import { printTable } from "./lib/run.js";

/**
 * `pnpm bench:export` (issue #29 item 7), one controller (api role) on PostgreSQL, over HTTP on loopback:
 * 1. a monitor's runs streamed as NDJSON and as CSV: BENCH_ROWS (default 500,000) rows, rows/s, MB/s, time
 *    to the first byte, and the controller's RSS growth while streaming (constant memory: pages of 2000);
 * 2. `GET /v1/openmetrics` for an account of BENCH_MONITORS (default 1,000) monitors, each with a day of runs
 *    at 5-minute slots (288): BENCH_SCRAPES (default 20) scrapes one after the other, p50/p99 ms.
 */
const rowsWanted = Number(process.env.BENCH_ROWS ?? 500_000);
const monitorsWanted = Number(process.env.BENCH_MONITORS ?? 1000);
const scrapes = Number(process.env.BENCH_SCRAPES ?? 20);

const controller = await startApiController("export", {
  VANTAGE_SECRET_KEY: SecretKey.generate().toBase64(),
});
const { url, token, owner } = controller;
const k = controller.db;
const auth = { authorization: `Bearer ${token}` };

// 1. One monitor with `rowsWanted` runs: slots a second apart, two nodes each.
await sql`
  insert into monitors (id, owner_id, name, type, target, config, interval_s, status, next_run_at)
  select 'mon_bench_' || i, ${owner}, 'm' || i, 'http', 'https://example.com/', '{}', 300, 'active',
    '2100-01-01'
  from generate_series(0, ${monitorsWanted - 1}) as g(i)`.execute(k);
const seq0 = (
  await k.selectFrom("monitors").select("seq").where("id", "=", "mon_bench_0").executeTakeFirstOrThrow()
).seq;
const start = Date.UTC(2026, 10, 1);
await sql`
  insert into monitor_runs (monitor_seq, slot, node_id, success, latency_ms, error_code)
  select ${seq0}, ${new Date(start)}::timestamptz + (i / 2) * interval '1 second', 'n' || (i % 2), i % 17 <> 0,
    (i % 500) / 3.0, case when i % 17 = 0 then 'connect_timeout' end
  from generate_series(0, ${rowsWanted - 1}) as g(i)`.execute(k);

async function stream(format: "ndjson" | "csv") {
  const rss0 = process.memoryUsage().rss;
  let peak = rss0;
  const t0 = performance.now();
  const res = await fetch(`${url}/v1/monitors/mon_bench_0/export?format=${format}`, { headers: auth });
  let first = 0;
  let bytes = 0;
  let lines = 0;
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    if (!first) first = performance.now() - t0;
    bytes += chunk.length;
    for (const b of chunk) if (b === 10) lines++;
    peak = Math.max(peak, process.memoryUsage().rss);
  }
  const s = (performance.now() - t0) / 1000;
  const rows = format === "csv" ? lines - 1 : lines;
  return [
    format,
    rows,
    Math.round(rows / s),
    (bytes / 1e6 / s).toFixed(1),
    first.toFixed(0),
    ((peak - rss0) / 1e6).toFixed(0),
  ];
}
const exports = [await stream("ndjson"), await stream("csv")];

// 2. A day of runs at 5-minute slots for every monitor, then scrapes.
await sql`
  insert into monitor_runs (monitor_seq, slot, node_id, success, latency_ms)
  select m.seq, now() - s * interval '5 minutes', 'n0', s % 50 <> 0, 20 + s % 30
  from monitors m cross join generate_series(1, 288) as g(s) where m.id <> 'mon_bench_0'`.execute(k);
await sql`analyze monitor_runs`.execute(k);
const made = await fetch(`${url}/v1/metrics-token`, { method: "POST", headers: auth });
const scrapeToken = ((await made.json()) as { data: { token: string } }).data.token;
const times: number[] = [];
let size = 0;
for (let i = 0; i < scrapes; i++) {
  const t0 = performance.now();
  const res = await fetch(`${url}/v1/openmetrics`, { headers: { authorization: `Bearer ${scrapeToken}` } });
  size = (await res.text()).length;
  times.push(performance.now() - t0);
}
times.sort((a, b) => a - b);
const pct = (p: number) => times[Math.min(times.length - 1, Math.ceil((p / 100) * times.length) - 1)]!;

await controller.stop();
printTable(
  [
    "export (PostgreSQL, loopback HTTP)",
    "rows",
    "rows/s",
    "MB/s",
    "first byte ms",
    "RSS +MB (controller and client, one process)",
  ],
  exports,
);
printTable(
  ["OpenMetrics scrape", "monitors", "runs per monitor", "body KB", "p50 ms", "p99 ms"],
  [
    [
      "GET /v1/openmetrics",
      monitorsWanted,
      288,
      (size / 1024).toFixed(0),
      pct(50).toFixed(0),
      pct(99).toFixed(0),
    ],
  ],
);
process.exit(0);
