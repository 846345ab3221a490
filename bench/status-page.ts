import { mkdtempSync, rmSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { createTestDatabase } from "@vantage/testing";
import { loadConfig } from "../apps/controller/src/config.js";
import { jsonb } from "../apps/controller/src/db/json.js";
import { createLogger } from "../apps/controller/src/logger.js";
import { renderHtml } from "../apps/controller/src/modules/status-pages/render.js";
import { startRuntime } from "../apps/controller/src/runtime.js";
import { load, printTable, startServer } from "./lib/run.js";

/**
 * `pnpm bench:status-page` (issue #29 item 5): a status page of BENCH_COMPONENTS (default 50) components,
 * one monitor each, with 90 days of day roll-ups and today's hours, on PostgreSQL.
 * 1. render: BENCH_RENDERS (default 300) uncached renderings in process, each the snapshot (every read of
 *    the page, its monitors' state, 90-day totals, incidents and maintenance) and the HTML; p50/p99. Aim:
 *    p99 < 50 ms.
 * 2. from cache: a controller process (api role) answering `GET /status/<slug>` (HTML as it is, and gzip'd
 *    as browsers ask for it), the JSON and a badge to 32 connections for BENCH_SECONDS (default 5) each,
 *    after a bare Hono hello-world in its own process, the yardstick of the run. Aim: ≥ 1,000 req/s.
 * The load average is printed before and after: figures taken while other work runs are only indicative.
 * BENCH_PROFILE_DIR=<dir> runs the controller of part 2 under `--cpu-prof`, its profile written there.
 */
const components = Number(process.env.BENCH_COMPONENTS ?? 50);
const renders = Number(process.env.BENCH_RENDERS ?? 300);
const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const DAY_MS = 86_400_000;

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;

const loadBefore = loadavg()[0]!;
const tdb = await createTestDatabase();
const dataDir = mkdtempSync(join(tmpdir(), "vantage-bench-status-"));
const env = {
  DATABASE_URL: tdb.url,
  VANTAGE_DATA_DIR: dataDir,
  VANTAGE_JWT_SECRET: "status-bench-jwt-secret-0123456789abcdef",
  VANTAGE_ROLES: "api",
  VANTAGE_LOG_LEVEL: "warn",
  VANTAGE_ACCESS_LOG: "false",
};
const runtime = await startRuntime(loadConfig({ PORT: "0", ...env }), createLogger("warn"));
const k = runtime.db.kysely;
const owner = "usr_status_bench";
await k
  .insertInto("users")
  .values({ id: owner, email: "status-bench@example.com", password_hash: "x" } as never)
  .execute();
const now = Date.now();
const today = Math.floor(now / DAY_MS) * DAY_MS;
const hour = Math.floor(now / 3_600_000) * 3_600_000;
const ids: string[] = [];
for (let i = 0; i < components; i++) {
  const id = `mon_status_bench_${String(i).padStart(3, "0")}`;
  ids.push(id);
  const { seq } = await k
    .insertInto("monitors")
    .values({
      id,
      owner_id: owner,
      name: `Service ${i}`,
      type: "http",
      target: "https://example.com/",
      config: jsonb<string>({}),
      interval_s: 60,
      status: "active",
      state: i % 17 === 0 ? "down" : "up",
      next_run_at: new Date(now + 86_400_000),
    })
    .returning("seq")
    .executeTakeFirstOrThrow();
  const rows = [];
  for (let d = 1; d < 90; d++) {
    rows.push({
      monitor_seq: seq,
      period: "day" as const,
      bucket: new Date(today - d * DAY_MS),
      runs: 1440,
      failures: (i + d) % 9,
    });
  }
  for (let h = today; h < hour; h += 3_600_000) {
    rows.push({ monitor_seq: seq, period: "hour" as const, bucket: new Date(h), runs: 60, failures: 0 });
  }
  await k.insertInto("monitor_rollups").values(rows).execute();
}
await k
  .insertInto("monitor_rollups")
  .values([
    { monitor_seq: 0, period: "day", bucket: new Date(today), runs: 0, failures: 0 },
    { monitor_seq: 0, period: "hour", bucket: new Date(hour), runs: 0, failures: 0 },
  ])
  .onConflict((oc) => oc.columns(["monitor_seq", "period", "bucket"]).doNothing())
  .execute();
const svc = runtime.modules.statusPages.service;
const slug = "bench-status";
const page = await svc.createPage(owner, {
  slug,
  title: "Bench status",
  components: ids.map((id, i) => ({ name: `Service ${i}`, monitor_ids: [id] })),
});
await svc.openIncident(owner, page.id, { title: "Elevated errors", message: "Looking into it" });
await svc.addMaintenance(owner, page.id, {
  title: "Database upgrade",
  starts_at: new Date(now + DAY_MS).toISOString(),
  ends_at: new Date(now + DAY_MS + 3_600_000).toISOString(),
});

// ---- 1. uncached renderings, in process ----
const times: number[] = [];
const htmlOnly: number[] = [];
let bytes = 0;
let cpuStart = process.cpuUsage();
for (let i = 0; i < renders + 20; i++) {
  if (i === 20) cpuStart = process.cpuUsage();
  const start = performance.now();
  const snap = await svc.snapshot(slug);
  if (!snap) throw new Error("no snapshot");
  const mid = performance.now();
  const html = renderHtml(snap, { base: `/status/${slug}` });
  const end = performance.now();
  bytes = html.length;
  // The first 20 warm up (JIT, connections).
  if (i >= 20) {
    times.push(end - start);
    htmlOnly.push(end - mid);
  }
}
const cpu = process.cpuUsage(cpuStart);
const cpuPerRender = (cpu.user + cpu.system) / renders / 1000;
times.sort((a, b) => a - b);
htmlOnly.sort((a, b) => a - b);
await runtime.stop();

// ---- 2. from cache, over HTTP ----
const hello = await startServer(join(root, "bench/servers/hello.ts"));
const baseline = await load("hono hello-world", `${hello.url}/`, {
  seconds,
  connections: 32,
  cpu: hello.cpuSeconds,
});
await hello.stop();
const profileDir = process.env.BENCH_PROFILE_DIR;
const server = await startServer(
  join(root, "apps/controller/src/main.ts"),
  env,
  profileDir ? ["--cpu-prof", `--cpu-prof-dir=${profileDir}`] : [],
);
const results = [];
const gzip = { "accept-encoding": "gzip, deflate, br" };
for (const [name, path, headers] of [
  ["HTML page", `/status/${slug}`, {}],
  ["HTML page, gzip", `/status/${slug}`, gzip],
  ["JSON", `/status/${slug}/status.json`, {}],
  ["status badge", `/status/${slug}/badge/status.svg`, {}],
] as const) {
  results.push(
    await load(name, `${server.url}${path}`, { seconds, connections: 32, headers, cpu: server.cpuSeconds }),
  );
}
await server.stop();
rmSync(dataDir, { recursive: true, force: true });
await tdb.drop();

process.stdout.write(
  `\nUncached rendering of ${components} components × 90 days (${renders} runs, HTML ${Math.round(bytes / 1024)} KiB):\n\n`,
);
printTable(
  ["part", "p50 ms", "p99 ms", "aim"],
  [
    [
      "snapshot + HTML",
      times[Math.floor(times.length / 2)]!.toFixed(2),
      percentile(times, 99).toFixed(2),
      "p99 < 50 ms",
    ],
    [
      "HTML alone",
      htmlOnly[Math.floor(htmlOnly.length / 2)]!.toFixed(2),
      percentile(htmlOnly, 99).toFixed(2),
      "",
    ],
  ],
);
process.stdout.write(
  `\nController CPU per uncached rendering (this process: queries' driver work and the HTML; PostgreSQL's own not counted): ${cpuPerRender.toFixed(2)} ms\n`,
);
process.stdout.write(
  `\nFrom cache (32 connections, ${seconds} s each, controller process with the api role):\n\n`,
);
printTable(
  ["route", "req/s", "p50 ms", "p99 ms", "errors", "CPU µs/req", "vs hello-world", "aim"],
  [
    [
      baseline.name,
      baseline.rps,
      baseline.p50,
      baseline.p99,
      baseline.errors,
      baseline.cpuUs?.toFixed(0) ?? "",
      "1.00",
      "",
    ],
    ...results.map((r) => [
      r.name,
      r.rps,
      r.p50,
      r.p99,
      r.errors,
      r.cpuUs?.toFixed(0) ?? "",
      (r.rps / baseline.rps).toFixed(2),
      "≥ 1,000 req/s",
    ]),
  ],
);
process.stdout.write(
  `\n(Node ${process.version}; ${cpus().length} cores; load average ${loadBefore.toFixed(2)} before, ` +
    `${loadavg()[0]!.toFixed(2)} after: figures under load are only indicative)\n`,
);
process.exit(0);
