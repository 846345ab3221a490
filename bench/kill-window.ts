import { type ChildProcess, execFile, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { loadavg } from "node:os";
import { promisify } from "node:util";
import { startCluster } from "../apps/controller/src/e2e/cluster.js";
import { leanClient } from "./lib/client.js";
import { listenerPid } from "./lib/listener-pid.js";
import { pacedPosts } from "./lib/paced.js";
import { printTable, startServer } from "./lib/run.js";

/**
 * `pnpm bench:kill-window`: what a controller killed with SIGKILL loses of the Form B tasks it has already
 * answered (ADR 0003 writes them just behind the answer).
 *
 * A cluster as in bench:probe-fanout (3 agent processes, nats-server with nkeys, a fresh PostgreSQL
 * database, the TCP target in a process of its own). For each rate, BENCH_KILL_REPEATS times: start a Form B
 * controller, warm it up with sequential requests, drive `POST /v1/probe/tcp` open-loop at that rate over
 * kept-alive node:http sockets (recording every task id answered 200 and when the answer arrived), SIGKILL
 * the controller after BENCH_KILL_AFTER_MS (+ up to 50 ms of jitter), wait for anything PostgreSQL had
 * received to commit, and look the answered ids up in `probe_tasks`. The controller's pid comes from
 * `ss -ltnpH` on its port (checked to be our own child running the controller's main); `psql` reads the
 * table, with `xmin`, so the tasks written by one statement (one transaction) can be grouped into the
 * writer's batches.
 *
 * Printed per rate: lost answered tasks per kill, how long before the kill the lost ones were answered (the
 * loss window), lost as a share of the last second's answers, the writer's cycle as seen in the stored
 * batches (the time between the ends of consecutive batches = flush delay + statement + event-loop lag), and
 * the transactions the kills cut (pg_stat_database.xact_rollback: a statement PostgreSQL had begun to
 * receive, e.g. parsed but not yet bound and executed, is rolled back when its connection dies).
 *
 * BENCH_KILL_RATES (default 100,220,400 tasks/s), BENCH_KILL_REPEATS (5), BENCH_KILL_AFTER_MS (3000),
 * BENCH_KILL_WARMUP (500), BENCH_KILL_BUSY (0: processes spinning on the CPU meanwhile, a busy host);
 * BENCH_VERBOSE=1 prints every kill; BENCH_KILL_LOG_STATEMENTS=1 also logs every statement on the bench's
 * database to the PostgreSQL server log with its completion time, to see which statement a kill cut.
 */
const rates = (process.env.BENCH_KILL_RATES ?? "100,220,400").split(",").map(Number);
const repeats = Number(process.env.BENCH_KILL_REPEATS ?? 5);
const killAfterMs = Number(process.env.BENCH_KILL_AFTER_MS ?? 3000);
const warmup = Number(process.env.BENCH_KILL_WARMUP ?? 500);
// A busy host: this many processes spinning on the CPU for the whole bench (the machine has 2 cores).
const busy = Number(process.env.BENCH_KILL_BUSY ?? 0);
const settleMs = 500;
// With JetStream (default) answers are in the results write-ahead log first (ADR 0012): after each kill a
// second controller drains what the killed one left. BENCH_JETSTREAM=0: a server without it, as before.
const jetstream = process.env.BENCH_JETSTREAM !== "0";
// The killed controller's lease must go stale (LEASE_TTL_MS, 20 s) and a drain run (every 5 s) first.
const drainTimeoutMs = 60_000;
const verbose = process.env.BENCH_VERBOSE === "1";

const root = new URL("..", import.meta.url).pathname;
const controllerMain = "apps/controller/src/main.ts";
// Not exported by the writer; read from its source so the report cannot drift from the code.
const flushDelayMs = Number(
  /DEFAULT_FLUSH_DELAY_MS = (\d+)/.exec(
    readFileSync(`${root}apps/controller/src/modules/probes/result-writer.ts`, "utf8"),
  )?.[1] ?? Number.NaN,
);

const agents = [
  { id: "bench-fra", country: "DE", region: "eu-central", provider: "hetzner" },
  { id: "bench-nyc", country: "US", region: "us-east", provider: "digitalocean" },
  { id: "bench-sgp", country: "SG", region: "ap-southeast", provider: "vultr" },
];

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const sorted = (xs: readonly number[]) => [...xs].sort((a, b) => a - b);
const median = (xs: readonly number[]) => {
  if (xs.length === 0) return Number.NaN;
  const s = sorted(xs);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
const withLog =
  "with JetStream: the results write-ahead log on, what a killed controller left in it stored by a second " +
  "controller started after the kill";
const withoutLog = "without JetStream: write-behind alone";
const minMedMax = (xs: readonly number[]) => `${Math.min(...xs)} / ${median(xs)} / ${Math.max(...xs)}`;
const f1 = (n: number) => (Number.isFinite(n) ? n.toFixed(1) : "–");

interface KillRun {
  rate: number;
  achieved: number;
  answered: number;
  lastSecond: number;
  lost: number;
  /** Answered tasks not in PostgreSQL after the kill, stored afterwards from the write-ahead log. */
  fromLog: number;
  /** Kill → every answered task stored, ms (the drain), or NaN. */
  drainMs: number;
  /** kill − answer time of each lost task, ms (0 for answers that reached the client after the kill). */
  lostAges: number[];
  /** How long before the kill the newest stored task was answered, ms. */
  newestStoredAge: number;
  /** How long before the kill each of the last stored batches ended (its newest answer), ms. */
  batchEndAges: number[];
  /** Transactions rolled back in the bench's database over the run (the kill cutting a statement). */
  rollbacks: number;
  /** Consecutive batch ends in the last second before the kill, ms apart. */
  cycles: number[];
  batchSizes: number[];
  p50: number;
  load1: number;
}

const [cluster, target] = await Promise.all([
  startCluster(agents, { jetstream }),
  startServer(new URL("./servers/tcp-target.ts", import.meta.url).pathname),
]);

const psql = async (...commands: string[]) =>
  (
    await promisify(execFile)(
      "psql",
      [
        "-X",
        "-A",
        "-t",
        "-F",
        ",",
        "-v",
        "ON_ERROR_STOP=1",
        "-d",
        cluster.db.url,
        ...commands.flatMap((c) => ["-c", c]),
      ],
      { maxBuffer: 64 * 1024 * 1024 },
    )
  ).stdout;

// Diagnostic: every statement of the controllers on this database goes to the PostgreSQL server log with its
// duration (completion time in the line prefix), to see which statement a kill cut.
if (process.env.BENCH_KILL_LOG_STATEMENTS === "1") {
  await psql(
    `alter database ${cluster.db.name} set log_min_duration_statement = 0`,
    `alter database ${cluster.db.name} set log_parameter_max_length = 0`,
  );
  process.stderr.write(`statements of database ${cluster.db.name} go to the PostgreSQL server log\n`);
}

async function storedTasks(since: Date): Promise<Map<string, string>> {
  const stdout = await psql(
    `select id, xmin::text from probe_tasks where created_at >= '${since.toISOString()}'`,
  );
  const map = new Map<string, string>();
  for (const line of stdout.split("\n")) {
    const [id, xmin] = line.split(",");
    if (id && xmin) map.set(id, xmin);
  }
  return map;
}

const perSecondP50 = (answers: readonly { at: number; latency: number }[], start: number) => {
  const seconds: number[][] = [];
  for (const a of answers) {
    const i = Math.floor((a.at - start) / 1000);
    const bucket = seconds[i] ?? [];
    bucket.push(a.latency);
    seconds[i] = bucket;
  }
  return [...seconds].map((xs) => median(xs ?? []));
};

const rollbacks = async () =>
  Number(await psql("select xact_rollback from pg_stat_database where datname = current_database()"));

async function killRun(rate: number): Promise<KillRun> {
  const load1 = loadavg()[0]!;
  const controller = await cluster.startController({
    VANTAGE_API_FORM: "b",
    // As deployed by default (and as in bench:probe-fanout): level info, one access-log line per request.
    VANTAGE_ACCESS_LOG: "true",
    VANTAGE_PLAN_LIMITS: JSON.stringify({ anonymous: { node_probes_per_hour: null } }),
    VANTAGE_LOG_LEVEL: "info",
  });
  try {
    const port = Number(new URL(controller.url).port);
    const pid = listenerPid(port, controllerMain);
    await cluster.waitForNodes(
      controller.url,
      agents.map((a) => a.id),
    );
    const body = JSON.stringify({ host: "127.0.0.1", port: target.port, timeout: 5 });
    // A fresh controller is cold (JIT, pools): its first second answered up to 10× slower. Warm it up first.
    const client = leanClient(controller.url);
    for (let i = 0; i < warmup; i++) await client.send("POST", "/v1/probe/tcp", body);
    client.close();
    const since = new Date(Date.now() - 1000);
    const rollbacksBefore = await rollbacks();
    const start = performance.now();
    const load = pacedPosts({
      baseUrl: controller.url,
      path: "/v1/probe/tcp",
      body,
      ratePerSecond: rate,
      maxSeconds: (killAfterMs + 5000) / 1000,
    });
    await sleep(killAfterMs + Math.random() * 50);
    const killAt = performance.now();
    const killWall = new Date();
    process.kill(pid, "SIGKILL");
    load.halt();
    await load.settled();
    await controller.stop(); // reaps the child (already dead)
    // A statement PostgreSQL had received before the kill still commits; give it time to.
    await sleep(settleMs);
    const storedAtKill = await storedTasks(since);
    const rolledBack = (await rollbacks()) - rollbacksBefore;
    let stored = storedAtKill;
    let drainMs = Number.NaN;
    if (jetstream) {
      // Another controller (scheduler role) stores what the killed one left in the log.
      const drainer = await cluster.startController({ VANTAGE_API_FORM: "b" });
      try {
        const deadline = performance.now() + drainTimeoutMs;
        while (load.answers.some((a) => !stored.has(a.taskId)) && performance.now() < deadline) {
          await sleep(500);
          stored = await storedTasks(since);
        }
        if (load.answers.every((a) => stored.has(a.taskId))) drainMs = performance.now() - killAt;
      } finally {
        await drainer.stop();
      }
    }

    const answers = load.answers;
    const lostAges = answers.filter((a) => !stored.has(a.taskId)).map((a) => Math.max(0, killAt - a.at));
    const fromLog = answers.filter((a) => stored.has(a.taskId) && !storedAtKill.has(a.taskId)).length;
    // The writer's batches, as they were at the kill (drained tasks form batches of their own).
    const storedAnswers = answers.filter((a) => storedAtKill.has(a.taskId));
    const newestStoredAge = killAt - Math.max(...storedAnswers.map((a) => a.at));
    // Batches: tasks written by one statement share its transaction id (xmin).
    const batches = new Map<string, { end: number; size: number }>();
    for (const a of storedAnswers) {
      const xmin = storedAtKill.get(a.taskId)!;
      const b = batches.get(xmin) ?? { end: 0, size: 0 };
      b.end = Math.max(b.end, a.at);
      b.size++;
      batches.set(xmin, b);
    }
    const recent = [...batches.values()].filter((b) => b.end > killAt - 1000).sort((a, b) => a.end - b.end);
    const cycles = recent.slice(1).map((b, i) => b.end - recent[i]!.end);
    const run: KillRun = {
      rate,
      achieved: (load.sent / (killAt - start)) * 1000,
      answered: answers.length,
      lastSecond: answers.filter((a) => a.at > killAt - 1000).length,
      lost: lostAges.length,
      fromLog,
      drainMs,
      lostAges,
      newestStoredAge,
      batchEndAges: recent.map((b) => killAt - b.end).slice(-4),
      rollbacks: rolledBack,
      cycles,
      batchSizes: recent.map((b) => b.size),
      p50: median(answers.map((a) => a.latency)),
      load1,
    };
    if (verbose) {
      const list = (xs: readonly number[], sep = " ") => xs.map(f1).join(sep);
      process.stderr.write(
        `${killWall.toISOString()} kill, rate ${rate}: answered ${run.answered}, lost ${run.lost} ` +
          `(from the log ${fromLog}, all stored ${f1(drainMs / 1000)} s after the kill) ` +
          `[${list(sorted(lostAges))}] ms, last batches ended ${list(run.batchEndAges, ", ")} ms before ` +
          `the kill, cycles [${list(cycles)}], batches [${run.batchSizes.join(" ")}], transactions cut ` +
          `${rolledBack}, answer p50 per second [${list(perSecondP50(answers, start))}] ms, ` +
          `load ${load1.toFixed(2)}\n`,
      );
    }
    return run;
  } finally {
    await controller.stop();
  }
}

const spinners: ChildProcess[] = [];
try {
  for (let i = 0; i < busy; i++)
    spinners.push(spawn(process.execPath, ["-e", "for (;;) {}"], { stdio: "ignore" }));
  const runs: KillRun[] = [];
  for (const rate of rates) for (let i = 0; i < repeats; i++) runs.push(await killRun(rate));

  const pct = (xs: readonly number[], p: number) => {
    const s = sorted(xs);
    return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? Number.NaN;
  };
  const maxOf = (xs: readonly number[]) => (xs.length ? Math.max(...xs) : 0);
  process.stdout.write(`\n`);
  printTable(
    [
      "rate /s (sent)",
      "kills",
      "lost per kill min / med / max",
      "stored from the log per kill min / med / max",
      "window ms med / max",
      "window max per kill, med",
      "lost % of last second",
      "writer cycle ms med / p90 / max",
      "tasks per statement",
      "transactions cut",
      "answer p50 ms",
      "load 1 min",
    ],
    rates.map((rate) => {
      const rs = runs.filter((r) => r.rate === rate);
      const lost = rs.map((r) => r.lost);
      const ages = rs.flatMap((r) => r.lostAges);
      const cycles = rs.flatMap((r) => r.cycles);
      const lastSecond = rs.reduce((s, r) => s + r.lastSecond, 0);
      const loads = rs.map((r) => r.load1);
      return [
        `${rate} (${Math.round(median(rs.map((r) => r.achieved)))})`,
        rs.length,
        `${Math.min(...lost)} / ${median(lost)} / ${Math.max(...lost)}`,
        jetstream ? minMedMax(rs.map((r) => r.fromLog)) : "– (no JetStream)",
        ages.length ? `${f1(median(ages))} / ${f1(maxOf(ages))}` : "– (none lost)",
        f1(median(rs.map((r) => maxOf(r.lostAges)))),
        `${((100 * lost.reduce((s, n) => s + n, 0)) / lastSecond).toFixed(1)} %`,
        `${f1(median(cycles))} / ${f1(pct(cycles, 90))} / ${f1(maxOf(cycles))}`,
        median(rs.flatMap((r) => r.batchSizes)),
        rs.reduce((s, r) => s + r.rollbacks, 0),
        f1(median(rs.map((r) => r.p50))),
        `${Math.min(...loads).toFixed(1)}–${Math.max(...loads).toFixed(1)}`,
      ];
    }),
  );
  const all = runs.flatMap((r) => r.lostAges);
  const allCycles = runs.flatMap((r) => r.cycles);
  const windows = runs.map((r) => maxOf(r.lostAges));
  const cycle = median(allCycles);
  process.stdout.write(
    `\nwriter flush delay (DEFAULT_FLUSH_DELAY_MS): ${flushDelayMs} ms; ` +
      `writer cycle (flush delay + statement + event-loop lag, between the ends of consecutive stored ` +
      `batches in the last second before a kill): ` +
      `median ${f1(cycle)} ms, p90 ${f1(pct(allCycles, 90))} ms, max ${f1(maxOf(allCycles))} ms.\n` +
      `loss window over all ${runs.length} kills: median ${f1(median(all))} ms, max ${f1(maxOf(all))} ms; ` +
      `kills whose window exceeded the flush delay: ${windows.filter((w) => w > flushDelayMs).length}, ` +
      `one median cycle: ${windows.filter((w) => w > cycle).length}, ` +
      `two: ${windows.filter((w) => w > 2 * cycle).length}.\n` +
      `(window = kill time − arrival of each lost answer at the client; transactions cut = ` +
      `pg_stat_database.xact_rollback over the run; ${repeats} kills per rate after ${killAfterMs} ms of ` +
      `open-loop traffic, after ${warmup} sequential warm-up requests; ` +
      `${busy} CPU-spinning processes besides; ` +
      `Form B tcp, 3 agents, PostgreSQL, nats-server ${jetstream ? withLog : withoutLog}; load = 1-minute load average before each kill, which ` +
      `includes the bench's own processes, 2 cores)\n`,
  );
} finally {
  for (const p of spinners) p.kill("SIGKILL");
  await target.stop();
  await cluster.stop();
}
