import autocannon from "autocannon";
import { connectDb } from "../apps/controller/src/db/connect.js";
import { startCluster } from "../apps/controller/src/e2e/cluster.js";
import { leanClient } from "./lib/client.js";
import { printTable, startServer } from "./lib/run.js";

/**
 * `pnpm bench:probe-fanout`: Form B TCP probes to a loopback listener, fanned out over real NATS to three
 * agent processes by a controller process on PostgreSQL.
 * - latency: sequential requests over one kept-alive connection (node:http, see lib/client.ts); overhead =
 *   response time − the slowest node's own time (its reported connect time, and the agent's whole job
 *   duration read back from probe_results);
 * - throughput: autocannon, 32 connections, BENCH_SECONDS (default 10) after a 2 s warm-up.
 * nats-server runs with JetStream, so answers wait for the results write-ahead log (ADR 0012);
 * BENCH_JETSTREAM=0 runs it without (write-behind alone, as before the log).
 */
const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const samples = Number(process.env.BENCH_SAMPLES ?? 1000);
const agents = [
  { id: "bench-fra", country: "DE", region: "eu-central", provider: "hetzner" },
  { id: "bench-nyc", country: "US", region: "us-east", provider: "digitalocean" },
  { id: "bench-sgp", country: "SG", region: "ap-southeast", provider: "vultr" },
];

// The target listener runs in a process of its own, as a real target is elsewhere (bench/servers).
const [cluster, target] = await Promise.all([
  // BENCH_JETSTREAM=0: a NATS server without JetStream, so no results write-ahead log (ADR 0012).
  startCluster(agents, { jetstream: process.env.BENCH_JETSTREAM !== "0" }),
  startServer(new URL("./servers/tcp-target.ts", import.meta.url).pathname),
]);
const controller = await cluster.startController({
  VANTAGE_API_FORM: "b",
  // As deployed by default: level info and one JSON access-log line per request (stdout, discarded here).
  VANTAGE_ACCESS_LOG: "true",
  // The quota is checked and counted on every request, as deployed; its limit is just out of reach.
  VANTAGE_PLAN_LIMITS: JSON.stringify({ anonymous: { node_probes_per_hour: null } }),
  VANTAGE_LOG_LEVEL: process.env.VANTAGE_LOG_LEVEL ?? "info",
});
try {
  await cluster.waitForNodes(
    controller.url,
    agents.map((a) => a.id),
  );
  const url = `${controller.url}/v1/probe/tcp`;
  const body = JSON.stringify({ host: "127.0.0.1", port: target.port, timeout: 5 });
  const headers = { "content-type": "application/json" };
  const client = leanClient(controller.url);
  const probe = () => client.send("POST", "/v1/probe/tcp", body);

  // Warm-up: JIT, connection pools, prepared statements.
  for (let i = 0; i < 100; i++) await probe();

  const rows: { taskId: string; total: number; maxConnect: number }[] = [];
  for (let i = 0; i < samples; i++) {
    const start = performance.now();
    const res = await probe();
    const total = performance.now() - start;
    const json = JSON.parse(res.text) as {
      data: { task_id: string; results: { success: boolean; latency_ms: number | null }[] };
    };
    if (res.status !== 200 || json.data.results.some((r) => !r.success)) throw new Error("probe failed");
    rows.push({
      taskId: json.data.task_id,
      total,
      maxConnect: Math.max(...json.data.results.map((r) => r.latency_ms ?? 0)),
    });
  }
  client.close();
  // Form B tasks are written just behind their answers (ADR 0003); let the last ones land.
  await new Promise((r) => setTimeout(r, 500));
  const db = await connectDb({ databaseUrl: cluster.db.url, dataDir: "unused", maxConnections: 1 });
  const durations = new Map<string, number>();
  const rowsDb = await db.kysely
    .selectFrom("probe_results")
    .select(["task_id", (eb) => eb.fn.max("duration_ms").as("d")])
    .groupBy("task_id")
    .execute();
  for (const r of rowsDb) durations.set(r.task_id, Number(r.d));
  await db.close();

  const pct = (xs: number[], p: number) => {
    const s = [...xs].sort((a, b) => a - b);
    return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
  };
  const totals = rows.map((r) => r.total);
  const overConnect = rows.map((r) => r.total - r.maxConnect);
  const overAgent = rows.map((r) => r.total - (durations.get(r.taskId) ?? 0));
  const f = (n: number) => n.toFixed(2);

  const load = { url, method: "POST" as const, headers, body, connections: 32 };
  await autocannon({ ...load, duration: 2 });
  const r = await autocannon({ ...load, duration: seconds });

  printTable(
    ["measure (Form B tcp, 3 nodes, loopback)", "p50 ms", "p99 ms", "target"],
    [
      ["end-to-end response time", f(pct(totals, 50)), f(pct(totals, 99)), ""],
      [
        "overhead beyond the probe's own time (slowest agent job)",
        f(pct(overAgent, 50)),
        f(pct(overAgent, 99)),
        "p50 ≤ 2, p99 ≤ 10",
      ],
      [
        "overhead beyond the slowest connect (stricter)",
        f(pct(overConnect, 50)),
        f(pct(overConnect, 99)),
        "",
      ],
    ],
  );
  process.stdout.write("\n");
  printTable(
    ["load (32 connections)", "req/s", "p50 ms", "p99 ms", "errors", "target"],
    [
      [
        `${seconds} s`,
        Math.round(r.requests.average),
        r.latency.p50,
        r.latency.p99,
        r.errors + r.non2xx,
        "≥ 500 req/s",
      ],
    ],
  );
  process.stdout.write(
    `\n(${samples} sequential samples; ${cluster.agents.size} agents; PostgreSQL; nats-server)\n`,
  );
} finally {
  await controller.stop();
  await target.stop();
  await cluster.stop();
}
