import autocannon from "autocannon";
import { connectDb } from "../apps/controller/src/db/connect.js";
import { type Cluster, startCluster } from "../apps/controller/src/e2e/cluster.js";
import { leanClient } from "./lib/client.js";
import { printTable, startServer } from "./lib/run.js";

/**
 * `pnpm bench:probe-fanout`: Form B TCP probes to a loopback listener, fanned out over real NATS to three
 * agent processes by a controller process on PostgreSQL.
 * - latency: sequential requests over one kept-alive connection (node:http, see lib/client.ts); overhead =
 *   response time − the slowest node's own time (its reported connect time, and the agent's whole job
 *   duration read back from probe_results);
 * - throughput: autocannon, 32 connections, BENCH_SECONDS (default 10) after a 2 s warm-up.
 * nats-server runs with JetStream, so answers wait for the results write-ahead log (ADR 0012).
 * BENCH_JETSTREAM=0 runs it without (write-behind alone, as before the log). BENCH_JETSTREAM=both runs the
 * two side by side in one run (before and after, issue #27): two deployments, the sequential samples
 * alternated request by request and the load phases alternated, so both see the same host.
 */
const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const samples = Number(process.env.BENCH_SAMPLES ?? 1000);
const mode = process.env.BENCH_JETSTREAM ?? "1";
const agents = (suffix: string) => [
  { id: `bench-fra${suffix}`, country: "DE", region: "eu-central", provider: "hetzner" },
  { id: `bench-nyc${suffix}`, country: "US", region: "us-east", provider: "digitalocean" },
  { id: `bench-sgp${suffix}`, country: "SG", region: "ap-southeast", provider: "vultr" },
];
const sides =
  mode === "both"
    ? [
        { name: "without the log", jetstream: false },
        { name: "with the log", jetstream: true },
      ]
    : [{ name: mode === "0" ? "without the log" : "with the log", jetstream: mode !== "0" }];

interface Side {
  name: string;
  cluster: Cluster;
  controller: Awaited<ReturnType<Cluster["startController"]>>;
  client: ReturnType<typeof leanClient>;
  rows: { taskId: string; total: number; maxConnect: number }[];
  rps: number[];
  load: { p50: number[]; p99: number[]; errors: number };
}

async function startSide(name: string, jetstream: boolean, suffix: string): Promise<Side> {
  // BENCH_JETSTREAM=0: a NATS server without JetStream, so no results write-ahead log (ADR 0012).
  const specs = agents(suffix);
  const cluster = await startCluster(specs, { jetstream });
  const controller = await cluster.startController({
    VANTAGE_API_FORM: "b",
    // As deployed by default: level info and one JSON access-log line per request (stdout, discarded here).
    VANTAGE_ACCESS_LOG: "true",
    // The quota is checked and counted on every request, as deployed; its limit is just out of reach.
    VANTAGE_PLAN_LIMITS: JSON.stringify({ anonymous: { node_probes_per_hour: null } }),
    VANTAGE_LOG_LEVEL: process.env.VANTAGE_LOG_LEVEL ?? "info",
  });
  await cluster.waitForNodes(
    controller.url,
    specs.map((a) => a.id),
  );
  return {
    name,
    cluster,
    controller,
    client: leanClient(controller.url),
    rows: [],
    rps: [],
    load: { p50: [], p99: [], errors: 0 },
  };
}

// The target listener runs in a process of its own, as a real target is elsewhere (bench/servers).
const target = await startServer(new URL("./servers/tcp-target.ts", import.meta.url).pathname);
const started: Side[] = [];
try {
  for (const [i, s] of sides.entries()) started.push(await startSide(s.name, s.jetstream, `-${i}`));
  const body = JSON.stringify({ host: "127.0.0.1", port: target.port, timeout: 5 });
  const probe = (side: Side) => side.client.send("POST", "/v1/probe/tcp", body);

  // Warm-up: JIT, connection pools, prepared statements.
  for (let i = 0; i < 100; i++) for (const side of started) await probe(side);

  for (let i = 0; i < samples; i++) {
    // Alternated request by request (and which goes first), so a busy moment of the host hits both.
    const order = i % 2 === 0 ? started : [...started].reverse();
    for (const side of order) {
      const start = performance.now();
      const res = await probe(side);
      const total = performance.now() - start;
      const json = JSON.parse(res.text) as {
        data: { task_id: string; results: { success: boolean; latency_ms: number | null }[] };
      };
      if (res.status !== 200 || json.data.results.some((r) => !r.success)) throw new Error("probe failed");
      side.rows.push({
        taskId: json.data.task_id,
        total,
        maxConnect: Math.max(...json.data.results.map((r) => r.latency_ms ?? 0)),
      });
    }
  }
  for (const side of started) side.client.close();
  // Form B tasks are written just behind their answers (ADR 0003); let the last ones land.
  await new Promise((r) => setTimeout(r, 500));

  const pct = (xs: number[], p: number) => {
    const s = [...xs].sort((a, b) => a - b);
    return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
  };
  const f = (n: number) => n.toFixed(2);
  const measures = new Map<Side, { totals: number[]; overAgent: number[]; overConnect: number[] }>();
  for (const side of started) {
    const db = await connectDb({ databaseUrl: side.cluster.db.url, dataDir: "unused", maxConnections: 1 });
    const durations = new Map<string, number>();
    const rowsDb = await db.kysely
      .selectFrom("probe_results")
      .select(["task_id", (eb) => eb.fn.max("duration_ms").as("d")])
      .groupBy("task_id")
      .execute();
    for (const r of rowsDb) durations.set(r.task_id, Number(r.d));
    await db.close();
    measures.set(side, {
      totals: side.rows.map((r) => r.total),
      overConnect: side.rows.map((r) => r.total - r.maxConnect),
      overAgent: side.rows.map((r) => r.total - (durations.get(r.taskId) ?? 0)),
    });
  }

  // Load phases alternated: two rounds of half the time each when comparing.
  const rounds = started.length > 1 ? 2 : 1;
  for (let round = 0; round < rounds; round++) {
    for (const side of round % 2 === 0 ? started : [...started].reverse()) {
      const load = {
        url: `${side.controller.url}/v1/probe/tcp`,
        method: "POST" as const,
        headers: { "content-type": "application/json" },
        body,
        connections: 32,
      };
      if (round === 0) await autocannon({ ...load, duration: 2 });
      const r = await autocannon({ ...load, duration: Math.max(1, Math.round(seconds / rounds)) });
      side.rps.push(r.requests.average);
      side.load.p50.push(r.latency.p50);
      side.load.p99.push(r.latency.p99);
      side.load.errors += r.errors + r.non2xx;
    }
  }

  const label = (side: Side, what: string) => (started.length > 1 ? `${what}, ${side.name}` : what);
  const rows: (string | number)[][] = [];
  for (const side of started) {
    const m = measures.get(side)!;
    rows.push(
      [label(side, "end-to-end response time"), f(pct(m.totals, 50)), f(pct(m.totals, 99)), ""],
      [
        label(side, "overhead beyond the probe's own time (slowest agent job)"),
        f(pct(m.overAgent, 50)),
        f(pct(m.overAgent, 99)),
        "p50 ≤ 2, p99 ≤ 10",
      ],
      [
        label(side, "overhead beyond the slowest connect (stricter)"),
        f(pct(m.overConnect, 50)),
        f(pct(m.overConnect, 99)),
        "",
      ],
    );
  }
  if (started.length > 1) {
    const [a, b] = started.map((s) => measures.get(s)!.overAgent);
    rows.push([
      "overhead growth with the log (issue #27)",
      `${pct(b!, 50) - pct(a!, 50) >= 0 ? "+" : ""}${f(pct(b!, 50) - pct(a!, 50))}`,
      `${pct(b!, 99) - pct(a!, 99) >= 0 ? "+" : ""}${f(pct(b!, 99) - pct(a!, 99))}`,
      "p50 ≤ +0.5",
    ]);
  }
  printTable(["measure (Form B tcp, 3 nodes, loopback)", "p50 ms", "p99 ms", "target"], rows);
  process.stdout.write("\n");
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  printTable(
    ["load (32 connections)", "req/s", "p50 ms", "p99 ms", "errors", "target"],
    started.map((side) => [
      label(side, `${seconds} s`),
      Math.round(mean(side.rps)),
      Math.round(mean(side.load.p50)),
      Math.round(mean(side.load.p99)),
      side.load.errors,
      "≥ 500 req/s",
    ]),
  );
  process.stdout.write(
    `\n(${samples} sequential samples per deployment; 3 agents each; PostgreSQL; nats-server)\n`,
  );
} finally {
  for (const side of started) {
    await side.controller.stop();
    await side.cluster.stop();
  }
  await target.stop();
}
