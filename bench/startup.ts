import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createAgentCredentials, createControllerCredentials } from "@vantage/nats-auth";
import { freePort, startNatsServer, writeSeedFile } from "@vantage/testing";
import { printTable } from "./lib/run.js";

/**
 * `pnpm bench:startup`: how long a process takes from its start to being ready, and how much memory it then
 * holds, run from the TypeScript sources through tsx (as before `pnpm build`) and from the built output.
 * - controller, embedded: `--embedded`, PGlite in a data directory a first (uncounted) start prepared;
 * - controller, PostgreSQL + NATS: a database of its own (BENCH_PG_URL's server, default the local one),
 *   nats-server with nkey credentials on a random loopback port;
 * - agent: the same nats-server.
 * First log = the first JSON log line (most of the code has loaded, under tsx compiled first). Ready = the log
 * line that ends start-up: the controller's "controller running" (after its port opened),
 * the agent's "agent serving jobs" (connected to NATS, permissions checked, subscribed, heartbeats started).
 * RSS is read from /proc 1 s after ready, peak RSS (VmHWM) then too. Medians of BENCH_STARTS (default 5)
 * starts of each, tsx and built taking turns, after one uncounted warm-up start each. The processes are the
 * node processes themselves (no pnpm): `pnpm controller`/`pnpm agent` add pnpm's own start and the
 * --if-stale check, measured in the last table.
 */
const root = fileURLToPath(new URL("../", import.meta.url));
const starts = Number(process.env.BENCH_STARTS ?? 5);
const adminUrl = process.env.BENCH_PG_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const dbName = "vantage_bench_startup";

interface Variant {
  name: string;
  how: "tsx" | "built";
  args: string[];
  env: Record<string, string>;
  ready: string;
}

interface Sample {
  /** Start → the first log line: loading the code (and, under tsx, compiling it) is most of it. */
  firstLogMs: number;
  readyMs: number;
  rssMb: number;
  peakMb: number;
}

function psql(sql: string): void {
  const r = spawnSync("psql", [adminUrl, "-v", "ON_ERROR_STOP=1", "-q", "-c", sql], { encoding: "utf8" });
  if (r.status !== 0) throw new Error(`psql ${sql}: ${r.stderr || r.error?.message}`);
}

function databaseUrl(name: string): string {
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

function memoryMb(pid: number): { rssMb: number; peakMb: number } {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = (key: string) =>
    Number(new RegExp(`^${key}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? Number.NaN);
  return { rssMb: kb("VmRSS") / 1024, peakMb: kb("VmHWM") / 1024 };
}

/** One start: spawn, wait for the ready line, read the memory 1 s later, SIGTERM, wait for the exit. */
async function startOnce(v: Variant): Promise<Sample> {
  const port = await freePort();
  const started = performance.now();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    VANTAGE_LOG_LEVEL: "info",
    PORT: String(port),
    HOST: "127.0.0.1",
    ...v.env,
  };
  // Embedded means no DATABASE_URL and no NATS_URL, whatever this shell has.
  for (const name of ["DATABASE_URL", "NATS_URL", "NATS_NKEY_SEED_FILE", "NATS_CREDS_FILE"])
    if (!(name in v.env)) delete env[name];
  const child = spawn(process.execPath, v.args, {
    cwd: root,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const exited = new Promise<number | string | null>((r) =>
    child.once("exit", (code, signal) => r(code ?? signal)),
  );
  let stderr = "";
  child.stderr.on("data", (d: Buffer) => {
    stderr += d.toString();
  });
  let firstLogMs = Number.NaN;
  const readyMs = await new Promise<number>((resolve, reject) => {
    let buffered = "";
    child.stdout.on("data", (d: Buffer) => {
      buffered += d.toString();
      let nl = buffered.indexOf("\n");
      while (nl >= 0) {
        const line = buffered.slice(0, nl);
        buffered = buffered.slice(nl + 1);
        if (line.startsWith("{")) {
          if (Number.isNaN(firstLogMs)) firstLogMs = performance.now() - started;
          if ((JSON.parse(line) as { msg?: string }).msg === v.ready) resolve(performance.now() - started);
        }
        nl = buffered.indexOf("\n");
      }
    });
    void exited.then((code) =>
      reject(new Error(`${v.name} (${v.how}) exited ${code} before ready: ${stderr}`)),
    );
  });
  await new Promise((r) => setTimeout(r, 1000));
  const memory = memoryMb(child.pid!);
  child.kill("SIGTERM");
  const forced = setTimeout(() => child.kill("SIGKILL"), 15_000);
  const code = await exited;
  clearTimeout(forced);
  if (code !== 0) throw new Error(`${v.name} (${v.how}) exited ${code} on SIGTERM: ${stderr}`);
  return { firstLogMs, readyMs, ...memory };
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
};

/**
 * The variants of one process (tsx, built) start in turn, one of each per round, so a change in the
 * machine's load during the run falls on both alike. One uncounted warm-up start each first: the data
 * directory, the OS file cache, tsx's compile cache.
 */
async function measure(group: Variant[]): Promise<Sample[]> {
  for (const v of group) await startOnce(v);
  const samples: Sample[][] = group.map(() => []);
  for (let i = 0; i < starts; i++) {
    for (const [j, v] of group.entries()) samples[j]!.push(await startOnce(v));
  }
  return samples.map((s) => ({
    firstLogMs: median(s.map((x) => x.firstLogMs)),
    readyMs: median(s.map((x) => x.readyMs)),
    rssMb: median(s.map((x) => x.rssMb)),
    peakMb: median(s.map((x) => x.peakMb)),
  }));
}

/** The wall time of a command (median of `starts`), e.g. the --if-stale check every run script makes. */
function timeCommand(args: string[]): number {
  const times: number[] = [];
  for (let i = 0; i <= starts; i++) {
    const t = performance.now();
    const r = spawnSync(process.execPath, args, { cwd: root, stdio: "ignore" });
    if (r.status !== 0) throw new Error(`node ${args.join(" ")} exited ${r.status}`);
    if (i > 0) times.push(performance.now() - t);
  }
  return median(times);
}

const build = spawnSync(process.execPath, ["scripts/build.mjs", "--if-stale", "controller", "agent"], {
  cwd: root,
  stdio: "inherit",
});
if (build.status !== 0) throw new Error("pnpm build failed");

const dir = mkdtempSync(join(tmpdir(), "vantage-bench-startup-"));
const seedFile = (name: string, seed: string) => writeSeedFile(dir, name, seed);
const controllerCreds = createControllerCredentials();
const agentCreds = createAgentCredentials("bench-startup");
const nats = await startNatsServer({ users: [controllerCreds.user, agentCreds.user] });
psql(`DROP DATABASE IF EXISTS ${dbName}`);
psql(`CREATE DATABASE ${dbName}`);

const embeddedEnv = { VANTAGE_DATA_DIR: join(dir, "embedded") };
const distributedEnv = {
  VANTAGE_DATA_DIR: join(dir, "distributed"),
  DATABASE_URL: databaseUrl(dbName),
  NATS_URL: nats.url,
  NATS_NKEY_SEED_FILE: seedFile("controller", controllerCreds.seed),
  VANTAGE_JWT_SECRET: "bench-startup-secret-of-at-least-32-characters",
};
const agentEnv = {
  VANTAGE_NODE_ID: "bench-startup",
  VANTAGE_NODE_NAME: "Bench start-up",
  VANTAGE_NODE_COUNTRY: "DE",
  VANTAGE_NODE_REGION: "eu-central",
  VANTAGE_NODE_PROVIDER: "bench",
  NATS_URL: nats.url,
  NATS_NKEY_SEED_FILE: seedFile("agent", agentCreds.seed),
};
const tsx = (entry: string, preload: string[] = []) => [...preload, "--import", "tsx", entry];
const controllerSrc = "apps/controller/src/main.ts";
const controllerDist = "apps/controller/dist/main.mjs";
const agentBuilt = existsSync(join(root, "apps/agent/dist/vantage-agent.mjs"));

const variants: Variant[] = [
  {
    name: "controller, embedded",
    how: "tsx",
    args: [...tsx(controllerSrc), "--embedded"],
    env: embeddedEnv,
    ready: "controller running",
  },
  {
    name: "controller, embedded",
    how: "built",
    args: [controllerDist, "--embedded"],
    env: embeddedEnv,
    ready: "controller running",
  },
  {
    name: "controller, PostgreSQL + NATS",
    how: "tsx",
    args: tsx(controllerSrc),
    env: distributedEnv,
    ready: "controller running",
  },
  {
    name: "controller, PostgreSQL + NATS",
    how: "built",
    args: [controllerDist],
    env: distributedEnv,
    ready: "controller running",
  },
  {
    name: "agent",
    how: "tsx",
    args: tsx("apps/agent/src/main.ts", ["--require", "./apps/agent/src/threadpool.cjs"]),
    env: agentEnv,
    ready: "agent serving jobs",
  },
  ...(agentBuilt
    ? [
        {
          name: "agent",
          how: "built" as const,
          args: ["--require", "./apps/agent/dist/threadpool.cjs", "apps/agent/dist/vantage-agent.mjs"],
          env: agentEnv,
          ready: "agent serving jobs",
        },
      ]
    : []),
];

const results = new Map<string, Sample>();
const loadBefore = loadavg()[0]!;
try {
  for (const name of new Set(variants.map((v) => v.name))) {
    const group = variants.filter((v) => v.name === name);
    process.stderr.write(`measuring ${name} (${group.map((v) => v.how).join(", ")})…\n`);
    const measured = await measure(group);
    for (const [j, v] of group.entries()) results.set(`${v.name}|${v.how}`, measured[j]!);
  }
  const checkMs = timeCommand(["scripts/build.mjs", "--if-stale", "controller"]);

  process.stdout.write(
    `\nStart-up, Node ${process.versions.node}, median of ${starts} starts each, tsx and built taking turns (after one warm-up start each); ` +
      `${cpus().length} cores, load average ${loadBefore.toFixed(1)} before, ${loadavg()[0]!.toFixed(1)} after\n\n`,
  );
  const names = [...new Set(variants.map((v) => v.name))];
  const fmt = (s: Sample | undefined, key: keyof Sample, digits = 0) =>
    s ? s[key].toFixed(digits) : "not built";
  printTable(
    [
      "process",
      "first log, tsx (ms)",
      "first log, built (ms)",
      "ready, tsx (ms)",
      "ready, built (ms)",
      "RSS tsx (MB)",
      "RSS built (MB)",
      "peak RSS tsx (MB)",
      "peak RSS built (MB)",
    ],
    names.map((n) => {
      const before = results.get(`${n}|tsx`);
      const after = results.get(`${n}|built`);
      return [
        n,
        fmt(before, "firstLogMs"),
        fmt(after, "firstLogMs"),
        fmt(before, "readyMs"),
        fmt(after, "readyMs"),
        fmt(before, "rssMb"),
        fmt(after, "rssMb"),
        fmt(before, "peakMb"),
        fmt(after, "peakMb"),
      ];
    }),
  );
  process.stdout.write("\n");
  printTable(
    ["run-script overhead", "ms"],
    [["`node scripts/build.mjs --if-stale controller` (up to date)", checkMs.toFixed(0)]],
  );
} finally {
  await nats.stop();
  psql(`DROP DATABASE IF EXISTS ${dbName}`);
  rmSync(dir, { recursive: true, force: true });
}
