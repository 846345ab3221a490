import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createAgentCredentials } from "@vantage/nats-auth";
import { startNatsServer, writeSeedFile } from "@vantage/testing";
import autocannon from "autocannon";
import { connectDb } from "../apps/controller/src/db/connect.js";
import { type Cluster, startCluster } from "../apps/controller/src/e2e/cluster.js";
import { subjects } from "../packages/protocol/src/index.js";
import { leanClient } from "./lib/client.js";
import { type Floor, floorUser, startFloor } from "./lib/floor.js";
import type { SimMessage } from "./lib/node-sim.js";
import { printTable, startServer } from "./lib/run.js";

/**
 * `pnpm bench:probe-fanout`: Form B TCP probes to a loopback listener, fanned out over real NATS to three
 * agent processes by a controller process on PostgreSQL, run as deployed: the built bundles
 * (scripts/build.mjs), the agents with their production flags (package.json's `agent` script);
 * BENCH_BUILT=0 runs the TypeScript sources through tsx instead.
 * - latency: sequential requests over one kept-alive connection (node:http, see lib/client.ts); overhead =
 *   response time − the slowest node's own time (its reported connect time, and the agent's whole job
 *   duration read back from probe_results);
 * - the floor (issue #31): alternated with those requests, one process sends a bare request over the same
 *   nats-server to three responder processes and waits for the three answers (lib/floor.ts); the
 *   overhead is reported as a multiple of it;
 * - throughput: autocannon, 32 connections, BENCH_SECONDS (default 10) after a 2 s warm-up.
 * nats-server runs with JetStream, so answers wait for the results write-ahead log (ADR 0012).
 * BENCH_JETSTREAM=0 runs it without (write-behind alone, as before the log). BENCH_JETSTREAM=both runs the
 * two side by side in one run (before and after, issue #27): two deployments, the sequential samples
 * alternated request by request and the load phases alternated, so both see the same host.
 * BENCH_CONTROLLER_NODE_OPTIONS: NODE_OPTIONS for the controller alone (e.g. a `--require` of a profiling preload).
 * BENCH_SIM_NODES=10000 runs, side by side in the same way, the three agents alone and the three agents
 * beside that many simulated nodes (heartbeats only, bench/lib/node-sim.ts; issue #34).
 * BENCH_BEFORE=<another checkout> (e.g. `git worktree add /tmp/before HEAD~1`, then `pnpm install`
 * there) runs, side by side in the same way, that checkout's built controller and agents ("before") and
 * this one's ("after"): a change's effect measured in one run, on the same host at the same moments.
 */
const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const samples = Number(process.env.BENCH_SAMPLES ?? 1000);
const mode = process.env.BENCH_JETSTREAM ?? "1";
const simNodes = Number(process.env.BENCH_SIM_NODES ?? 0);
const built = process.env.BENCH_BUILT !== "0";
const before = process.env.BENCH_BEFORE;
const root = new URL("..", import.meta.url).pathname;
const agents = (suffix: string) => [
  { id: `bench-fra${suffix}`, country: "DE", region: "eu-central", provider: "hetzner" },
  { id: `bench-nyc${suffix}`, country: "US", region: "us-east", provider: "digitalocean" },
  { id: `bench-sgp${suffix}`, country: "SG", region: "ap-southeast", provider: "vultr" },
];
if ([simNodes > 0, mode === "both", before !== undefined].filter(Boolean).length > 1)
  throw new Error("BENCH_SIM_NODES, BENCH_JETSTREAM=both and BENCH_BEFORE: one at a time");
if (before !== undefined && !built)
  throw new Error("BENCH_BEFORE runs built bundles: not with BENCH_BUILT=0");
const sides: { name: string; jetstream: boolean; sim: number; tree?: string }[] =
  before !== undefined
    ? [
        { name: "before", jetstream: mode !== "0", sim: 0, tree: before },
        { name: "after", jetstream: mode !== "0", sim: 0 },
      ]
    : mode === "both"
      ? [
          { name: "without the log", jetstream: false, sim: 0 },
          { name: "with the log", jetstream: true, sim: 0 },
        ]
      : simNodes > 0
        ? [
            { name: "3 agents alone", jetstream: mode !== "0", sim: 0 },
            {
              name: `3 agents + ${simNodes.toLocaleString("en")} simulated`,
              jetstream: mode !== "0",
              sim: simNodes,
            },
          ]
        : [{ name: mode === "0" ? "without the log" : "with the log", jetstream: mode !== "0", sim: 0 }];

interface Side {
  name: string;
  cluster: Cluster;
  controller: Awaited<ReturnType<Cluster["startController"]>>;
  client: ReturnType<typeof leanClient>;
  floor: Floor;
  sim: ChildProcess | undefined;
  dir: string;
  rows: { taskId: string; total: number; maxConnect: number }[];
  floorMs: number[];
  rps: number[];
  load: { p50: number[]; p99: number[]; errors: number };
}

async function startSide(spec: (typeof sides)[number], suffix: string): Promise<Side> {
  // BENCH_JETSTREAM=0: a NATS server without JetStream, so no results write-ahead log (ADR 0012).
  const specs = agents(suffix);
  const dir = mkdtempSync(join(tmpdir(), "vantage-bench-fanout-"));
  const floorCreds = floorUser();
  // Test-only user of the simulator: every heartbeat subject (a real agent may publish its own only).
  const simCreds = createAgentCredentials(`node-sim${suffix}`);
  simCreds.user.permissions = { publish: { allow: [subjects.allHeartbeats] }, subscribe: { deny: [">"] } };
  const cluster = await startCluster(specs, {
    jetstream: spec.jetstream,
    built,
    ...(spec.tree ? { tree: spec.tree } : {}),
    nats: ({ users }) =>
      startNatsServer({ users: [...users, floorCreds.user, simCreds.user], jetstream: spec.jetstream }),
  });
  const controller = await cluster.startController({
    VANTAGE_API_FORM: "b",
    // As deployed by default: level info and one JSON access-log line per request (stdout, discarded here).
    VANTAGE_ACCESS_LOG: "true",
    // The quota is checked and counted on every request, as deployed; its limit is just out of reach.
    VANTAGE_PLAN_LIMITS: JSON.stringify({ anonymous: { node_probes_per_hour: null } }),
    VANTAGE_LOG_LEVEL: process.env.VANTAGE_LOG_LEVEL ?? "info",
    // E.g. `--require ./profiler.cjs` (a preload that starts inspector's profiler): the controller alone.
    ...(process.env.BENCH_CONTROLLER_NODE_OPTIONS
      ? { NODE_OPTIONS: process.env.BENCH_CONTROLLER_NODE_OPTIONS }
      : {}),
  });
  await cluster.waitForNodes(
    controller.url,
    specs.map((a) => a.id),
  );
  let sim: ChildProcess | undefined;
  if (spec.sim > 0) {
    sim = spawn(process.execPath, ["--import", "tsx", join(root, "bench/lib/node-sim.ts")], {
      cwd: root,
      env: {
        ...process.env,
        NATS_URL: cluster.nats.url,
        NATS_NKEY_SEED_FILE: writeSeedFile(dir, "sim", simCreds.seed),
        SIM_NODES: String(spec.sim),
        SIM_PREFIX: `sim${suffix}`,
      },
      stdio: ["ignore", "inherit", "inherit", "ipc"],
    });
    const child = sim;
    await new Promise<void>((resolve) =>
      child.on("message", (m: SimMessage) => {
        if (m.type === "ready") resolve();
      }),
    );
    await waitForOnline(controller.url, spec.sim + specs.length);
  }
  const floor = await startFloor(cluster.nats.url, floorCreds.seed, dir, specs.length);
  return {
    name: spec.name,
    cluster,
    controller,
    client: leanClient(controller.url),
    floor,
    sim,
    dir,
    rows: [],
    floorMs: [],
    rps: [],
    load: { p50: [], p99: [], errors: 0 },
  };
}

/** Waits until the controller lists `count` nodes online (the simulated ones' first round heard). */
async function waitForOnline(url: string, count: number): Promise<void> {
  const deadline = Date.now() + 180_000;
  for (;;) {
    const res = (await (await fetch(`${url}/v1/nodes`)).json()) as { data: { items: { status: string }[] } };
    const online = res.data.items.filter((n) => n.status === "online").length;
    if (online >= count) return;
    if (Date.now() > deadline) throw new Error(`${online} of ${count} nodes online after 3 min`);
    await new Promise((r) => setTimeout(r, 1000));
  }
}

if (built) {
  // As `pnpm controller` and `pnpm agent` do before they start: a build when the sources are newer.
  for (const tree of before ? [before, root] : [root])
    execFileSync(
      process.execPath,
      [join(tree, "scripts/build.mjs"), "--if-stale", "web", "agent", "controller"],
      {
        cwd: tree,
        stdio: ["ignore", "inherit", "inherit"],
      },
    );
}
// The target listener runs in a process of its own, as a real target is elsewhere (bench/servers).
const target = await startServer(new URL("./servers/tcp-target.ts", import.meta.url).pathname);
const started: Side[] = [];
try {
  for (const [i, s] of sides.entries()) started.push(await startSide(s, `-${i}`));
  const body = JSON.stringify({ host: "127.0.0.1", port: target.port, timeout: 5 });
  // Beside simulated nodes (which serve no jobs) both sides name their three agents (`nodes`), so the
  // comparison is of the fan-out with 10,000 nodes present; automatic choice among them: bench:nodes.
  const bodies = new Map(
    started.map((side, i) => [
      side,
      simNodes > 0
        ? JSON.stringify({
            host: "127.0.0.1",
            port: target.port,
            timeout: 5,
            nodes: agents(`-${i}`).map((a) => a.id),
          })
        : body,
    ]),
  );
  const probe = (side: Side) => side.client.send("POST", "/v1/probe/tcp", bodies.get(side) ?? body);

  // Warm-up: JIT, connection pools, prepared statements.
  for (let i = 0; i < 100; i++) {
    for (const side of started) {
      await probe(side);
      await side.floor.once();
    }
  }

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
      side.floorMs.push(await side.floor.once());
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
        body: bodies.get(side) ?? body,
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
      [
        label(side, "floor: bare request to 3 responders and back, same nats-server"),
        f(pct(side.floorMs, 50)),
        f(pct(side.floorMs, 99)),
        "",
      ],
      [
        label(side, "overhead ÷ floor (×)"),
        f(pct(m.overAgent, 50) / pct(side.floorMs, 50)),
        f(pct(m.overAgent, 99) / pct(side.floorMs, 99)),
        "p50 ≤ 1.5",
      ],
    );
  }
  if (started.length > 1) {
    const [a, b] = started.map((s) => measures.get(s)!.overAgent);
    rows.push([
      simNodes > 0
        ? "overhead growth beside the simulated nodes (issue #34)"
        : before !== undefined
          ? "overhead change, after − before"
          : "overhead growth with the log (issue #27)",
      `${pct(b!, 50) - pct(a!, 50) >= 0 ? "+" : ""}${f(pct(b!, 50) - pct(a!, 50))}`,
      `${pct(b!, 99) - pct(a!, 99) >= 0 ? "+" : ""}${f(pct(b!, 99) - pct(a!, 99))}`,
      before !== undefined ? "" : "p50 ≤ +0.5",
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
    `\n(${samples} sequential samples per deployment; 3 agents each; PostgreSQL; nats-server; ` +
      `${built ? "built bundles, the agent's production flags" : "TypeScript through tsx"})\n`,
  );
} finally {
  for (const side of started) {
    await side.floor.stop();
    side.sim?.kill("SIGTERM");
    await side.controller.stop();
    await side.cluster.stop();
    rmSync(side.dir, { recursive: true, force: true });
  }
  await target.stop();
}
