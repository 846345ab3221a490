import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { createAgentCredentials, createControllerCredentials } from "@vantage/nats-auth";
import { adminUrl, startNatsServer, writeSeedFile } from "@vantage/testing";
import autocannon from "autocannon";
import { sql } from "kysely";
import { connectDb } from "../apps/controller/src/db/connect.js";
import { createLogger } from "../apps/controller/src/logger.js";
import { startPresence } from "../apps/controller/src/modules/nodes/index.js";
import { selectLocations } from "../apps/controller/src/modules/probes/select-locations.js";
import { selectNodes } from "../apps/controller/src/modules/probes/select-nodes.js";
import { subjects } from "../packages/protocol/src/index.js";
import { connectNats, natsControllerTransport } from "../packages/transport/src/nats.js";
import { listenerPid } from "./lib/listener-pid.js";
import { type SimMessage, type SimRequest, simNodeId } from "./lib/node-sim.js";
import { printTable, processCpuSeconds, type Server, startServer } from "./lib/run.js";

/**
 * `pnpm bench:nodes`: one controller process (all roles, PostgreSQL database `vantage_bench_nodes`, a
 * nats-server of its own with nkey users) hears BENCH_NODES (10,000) simulated agents (bench/lib/node-sim.ts:
 * real heartbeat messages on the real subjects, every BENCH_HEARTBEAT_MS = 5 s, the agents' default).
 * - presence: the controller's CPU (utime+stime from /proc/<pid>/stat, % of one core) and RSS over a
 *   steady window of BENCH_WINDOW_SECONDS (30) without HTTP load; beside it the PostgreSQL backends of the
 *   database and the simulator, for scale;
 * - `GET /v1/nodes`: autocannon, BENCH_CONNECTIONS (8) connections for BENCH_SECONDS (10) after 1 s warm-up,
 *   the default list, then a page and a filter (both API forms' page fields: Form B `per_page`);
 * - `GET /v1/nodes` with `If-None-Match`: conditional requests with the tag of the last answer (gzip), how
 *   many are 304 and their latency (the tag changes when the list is rebuilt, about once a second);
 * - node selection for an automatic spread: `selectNodes` in this process over a directory of its own that
 *   follows the same heartbeats (as an api controller's: `startPresence` without writes), while they keep
 *   arriving (2,000 a second), VANTAGE_DEFAULT_NODES = 3 and its maximum 50: from the live index (as the
 *   controller picks) and, for comparison, from the directory's snapshot (the path before issue #34);
 *   then by place (`locations`: 50 in Europe; three alternatives with a tag);
 * - offline detection: 100 simulated nodes stop (no goodbye), the time from each one's last heartbeat until
 *   `GET /v1/nodes` says offline (polled every 250 ms), against VANTAGE_NODE_OFFLINE_AFTER_MS (15 s).
 * Then the same list on a controller without the presence role (api only: it follows the heartbeats itself,
 * having loaded the `nodes` table once at start).
 */
const nodeCount = Number(process.env.BENCH_NODES ?? 10_000);
const heartbeatMs = Number(process.env.BENCH_HEARTBEAT_MS ?? 5000);
const windowS = Number(process.env.BENCH_WINDOW_SECONDS ?? 30);
const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 8);
const offlineAfterMs = 15_000;
const root = new URL("..", import.meta.url).pathname;
const dbName = "vantage_bench_nodes";
const load0 = loadavg()[0]!;
const clkTck = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim());
const rssMbOf = (pid: number) => {
  const m = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return Number(m?.[1] ?? 0) / 1024;
};

// --- database, NATS users, nats-server -------------------------------------------------------------------
const admin = await connectDb({ databaseUrl: adminUrl(), dataDir: "unused", maxConnections: 1 });
await sql.raw(`drop database if exists ${dbName} with (force)`).execute(admin.kysely);
await sql.raw(`create database ${dbName}`).execute(admin.kysely);
await admin.close();
const dbUrl = Object.assign(new URL(adminUrl()), { pathname: `/${dbName}` }).toString();

const dir = mkdtempSync(join(tmpdir(), "vantage-bench-nodes-"));
const seedFile = (name: string, seed: string) => writeSeedFile(dir, name, seed);
const controllerCreds = createControllerCredentials();
// Test-only user of the simulator: every heartbeat subject (a real agent may publish its own only), nothing else.
const simCreds = createAgentCredentials("node-sim");
simCreds.user.permissions = { publish: { allow: [subjects.allHeartbeats] }, subscribe: { deny: [">"] } };
const nats = await startNatsServer({ users: [controllerCreds.user, simCreds.user] });

// --- processes ---------------------------------------------------------------------------------------------
const controllerEnv = {
  DATABASE_URL: dbUrl,
  NATS_URL: nats.url,
  NATS_NKEY_SEED_FILE: seedFile("controller", controllerCreds.seed),
  VANTAGE_API_FORM: process.env.BENCH_FORM ?? "b",
  VANTAGE_NODE_OFFLINE_AFTER_MS: String(offlineAfterMs),
  // As deployed by default: level info, one access-log line per request (stdout, discarded here).
  VANTAGE_LOG_LEVEL: "info",
  VANTAGE_ACCESS_LOG: "true",
};
const controllerMain = join(root, "apps/controller/src/main.ts");
const controller = await startServer(controllerMain, controllerEnv);
const controllerPid = listenerPid(controller.port, "main.ts");
// The controller alone, before any node: its resident memory without the directory.
await new Promise((r) => setTimeout(r, 3000));
const idleRssMb = rssMbOf(controllerPid);

const simEntry = join(root, "bench/lib/node-sim.ts");
const sim: ChildProcess = spawn(process.execPath, ["--import", "tsx", simEntry], {
  cwd: root,
  env: {
    ...process.env,
    NATS_URL: nats.url,
    NATS_NKEY_SEED_FILE: seedFile("sim", simCreds.seed),
    SIM_NODES: String(nodeCount),
    SIM_HEARTBEAT_MS: String(heartbeatMs),
  },
  stdio: ["ignore", "inherit", "inherit", "ipc"],
});
const simAsk = (req: SimRequest, type: SimMessage["type"]) =>
  new Promise<SimMessage>((resolve) => {
    const on = (m: SimMessage) => {
      if (m.type !== type) return;
      sim.off("message", on);
      resolve(m);
    };
    sim.on("message", on);
    sim.send(req);
  });
const simReady = new Promise<void>((resolve) =>
  sim.on("message", (m: SimMessage) => m.type === "ready" && resolve()),
);

let apiOnly: Server | undefined;

// --- helpers -----------------------------------------------------------------------------------------------
type NodeItem = { id: string; status: string };
type NodeList = { items: NodeItem[]; total?: number };
const getList = async (url: string): Promise<NodeList> => {
  const res = await fetch(url);
  if (!res.ok) throw new Error(`GET ${url}: ${res.status}`);
  return ((await res.json()) as { data: NodeList }).data;
};
/** utime + stime in clock ticks of 10 ms. */
const cpuTicks = (pid: number) => Math.round(processCpuSeconds(pid) * 100);
const db = await connectDb({ databaseUrl: dbUrl, dataDir: "unused", maxConnections: 2 });
const backendPids = async () =>
  (
    await sql<{ pid: number }>`select pid from pg_stat_activity where datname = ${dbName}`.execute(db.kysely)
  ).rows.map((r) => r.pid);
const sumTicks = (pids: number[]) =>
  pids.reduce((s, p) => {
    try {
      return s + cpuTicks(p);
    } catch {
      return s; // a backend that ended meanwhile
    }
  }, 0);
const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? Number.NaN;
};
const f1 = (n: number) => n.toFixed(1);
const f2 = (n: number) => n.toFixed(2);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const progress = (what: string) => process.stderr.write(`bench:nodes: ${what}\n`);

try {
  // --- everyone online ---------------------------------------------------------------------------------------
  const t0 = performance.now();
  await simReady;
  for (;;) {
    const list = await getList(`${controller.url}/v1/nodes`);
    if (list.items.filter((n) => n.status === "online").length >= nodeCount) break;
    if (performance.now() - t0 > 120_000)
      throw new Error("the simulated nodes are not all online after 2 min");
    await sleep(500);
  }
  const allOnlineS = (performance.now() - t0) / 1000;
  progress(`${nodeCount} nodes online after ${f1(allOnlineS)} s; steady window next`);
  await sleep(heartbeatMs); // one more round: registrations written, steady state

  // --- presence CPU over a steady window ----------------------------------------------------------------------
  const pgPids = await backendPids();
  const before = {
    c: cpuTicks(controllerPid),
    pg: sumTicks(pgPids),
    sim: cpuTicks(sim.pid!),
    at: Date.now(),
  };
  const rssSamples: number[] = [];
  for (let s = 0; s < windowS; s++) {
    await sleep(1000);
    rssSamples.push(rssMbOf(controllerPid));
  }
  const wallS = (Date.now() - before.at) / 1000;
  const cpu = (ticks: number) => (100 * ticks) / clkTck / wallS;
  const controllerCpu = cpu(cpuTicks(controllerPid) - before.c);
  const pgCpu = cpu(sumTicks(pgPids) - before.pg);
  const simCpu = cpu(cpuTicks(sim.pid!) - before.sim);
  // Every node beats every interval: with the writes keeping up, the oldest row is about one interval old.
  const tableAge = async () =>
    Number(
      (
        await sql<{
          age: string;
        }>`select extract(epoch from now() - min(last_seen)) as age from nodes`.execute(db.kysely)
      ).rows[0]?.age,
    );
  const tableAgeSteady = await tableAge();

  progress("GET /v1/nodes under load");
  // --- GET /v1/nodes under load -------------------------------------------------------------------------------
  const form = controllerEnv.VANTAGE_API_FORM;
  const sizeField = form === "a" ? "limit" : "per_page";
  const loadRow = async (label: string, base: string, path: string, gzip = false) => {
    const url = `${base}${path}`;
    const headers: Record<string, string> = gzip ? { "accept-encoding": "gzip" } : {};
    const sampleRes = await fetch(url, { headers });
    const sample = await sampleRes.text(); // fetch decodes gzip; the wire size is measured below
    const data = (JSON.parse(sample) as { data: NodeList }).data;
    // Before pagination and filters existed, a query was ignored: the whole list came back.
    const ignored = path.includes("?") && data.total === undefined && data.items.length === nodeCount;
    await autocannon({ url, headers, connections, duration: 1 });
    const r = await autocannon({ url, headers, connections, duration: seconds });
    const wire = Math.round(r.throughput.average / Math.max(1, r.requests.average) / 1024);
    return [
      `${label} ${path}${gzip ? " (Accept-Encoding: gzip)" : ""}${ignored ? " (query ignored: full list)" : ""}`,
      Math.round(r.requests.average),
      r.latency.p50,
      r.latency.p99,
      `${wire} KiB`,
      r.errors + r.non2xx,
    ];
  };
  const httpRows = [
    await loadRow("presence controller", controller.url, "/v1/nodes"),
    await loadRow("presence controller", controller.url, "/v1/nodes", true),
    await loadRow("presence controller", controller.url, `/v1/nodes?${sizeField}=100&page=3`),
    await loadRow("presence controller", controller.url, "/v1/nodes?country=DE&status=online"),
  ];
  const rssUnderLoad = rssMbOf(controllerPid);
  const tableAgeLoaded = await tableAge();

  progress("GET /v1/nodes with If-None-Match");
  // --- conditional requests: 304 while the tag is current ----------------------------------------------------
  const conditional = async (base: string) => {
    const times: number[] = [];
    let notModified = 0;
    let tag = (await fetch(`${base}/v1/nodes`, { headers: { "accept-encoding": "gzip" } })).headers.get(
      "etag",
    );
    for (let i = 0; i < 500; i++) {
      const start = performance.now();
      const res = await fetch(`${base}/v1/nodes`, {
        headers: { "accept-encoding": "gzip", ...(tag ? { "if-none-match": tag } : {}) },
      });
      await res.arrayBuffer();
      const ms = performance.now() - start;
      if (res.status === 304) {
        notModified++;
        times.push(ms);
      } else tag = res.headers.get("etag");
      await sleep(10);
    }
    return [
      "presence controller /v1/nodes, If-None-Match: the last tag (gzip), 500 requests 10 ms apart",
      `${notModified}/500`,
      f2(pct(times, 50)),
      f2(pct(times, 99)),
    ];
  };
  const conditionalRow = await conditional(controller.url);

  progress("node selection");
  // --- node selection in-process, from a directory following the live heartbeats --------------------------
  const selectorNc = await connectNats({
    servers: nats.url,
    name: "bench-selector",
    nkeySeedFile: seedFile("selector", controllerCreds.seed),
  });
  const following = startPresence({
    db: db.kysely,
    transport: natsControllerTransport(selectorNc, false),
    log: createLogger("silent"),
    offlineAfterMs,
    writes: false,
  });
  await following.ready;
  await sleep(heartbeatMs + 1000); // every node heard at least once by this directory
  const selectRows: (string | number)[][] = [];
  const onlineNow = following.live?.onlineCount() ?? 0;
  for (const count of [3, 50]) {
    for (const [label, at] of [
      ["live index (as the controller picks)", () => undefined],
      ["directory snapshot (before issue #34)", () => Date.now()],
    ] as const) {
      const times: number[] = [];
      for (let i = 0; i < 1000; i++) {
        // Heartbeats arrive between picks, as they do between probes.
        await new Promise((r) => setImmediate(r));
        const now = at();
        const start = performance.now();
        const picked = await selectNodes(following, {
          type: "ping",
          count,
          offlineAfterMs,
          ...(now === undefined ? {} : { now }),
        });
        times.push(performance.now() - start);
        if (picked.length !== count) throw new Error(`picked ${picked.length} of ${count}`);
      }
      times.splice(0, 100); // warm-up
      selectRows.push([
        `${count} of ${onlineNow} online (ping), ${label}`,
        f2(pct(times, 50)),
        f2(pct(times, 99)),
      ]);
    }
  }
  // By place (`locations`, issue #30): a continent's 50, and three alternatives.
  for (const [label, entries] of [
    ['locations [{"europe", 50}]', [{ selector: "europe", count: 50 }]],
    [
      'locations ["DE+aws", {"asia", 10}, {"north-america+ipv6", 5}]',
      [
        { selector: "DE+aws", count: 1 },
        { selector: "asia", count: 10 },
        { selector: "north-america+ipv6", count: 5 },
      ],
    ],
  ] as const) {
    const times: number[] = [];
    const want = entries.reduce((n, e) => n + e.count, 0);
    for (let i = 0; i < 1000; i++) {
      await new Promise((r) => setImmediate(r));
      const start = performance.now();
      const picked = await selectLocations(following, {
        type: "ping",
        locations: { entries, field: "locations" },
        offlineAfterMs,
      });
      times.push(performance.now() - start);
      if (picked.length !== want) throw new Error(`picked ${picked.length} of ${want} for ${label}`);
    }
    times.splice(0, 100);
    selectRows.push([`${label} (ping), live index`, f2(pct(times, 50)), f2(pct(times, 99))]);
  }
  await following.stop();
  await selectorNc.close();

  progress("offline detection");
  // --- offline detection ----------------------------------------------------------------------------------------
  const victims = Array.from({ length: 100 }, (_, k) =>
    simNodeId("sim", k * Math.floor(nodeCount / 100) + 7),
  );
  const { lastBeat } = (await simAsk({ type: "stop", ids: victims }, "stopped")) as Extract<
    SimMessage,
    { type: "stopped" }
  >;
  const seenOffline = new Map<string, number>();
  const probe = await getList(`${controller.url}/v1/nodes?status=offline`);
  const offlinePath = probe.total !== undefined ? `/v1/nodes?status=offline&${sizeField}=100` : "/v1/nodes";
  const deadline = Date.now() + offlineAfterMs + 30_000;
  while (seenOffline.size < victims.length && Date.now() < deadline) {
    const list = await getList(`${controller.url}${offlinePath}`);
    const now = Date.now();
    for (const n of list.items)
      if (n.status === "offline" && !seenOffline.has(n.id)) seenOffline.set(n.id, now);
    await sleep(250);
  }
  const detect = victims.map((id) => ((seenOffline.get(id) ?? Number.NaN) - (lastBeat[id] ?? 0)) / 1000);

  progress("api-only controller");
  // --- a controller without the presence role (follows the heartbeats, writes nothing) ------------------------
  apiOnly = await startServer(controllerMain, { ...controllerEnv, VANTAGE_ROLES: "api" });
  httpRows.push(await loadRow("api-only controller", apiOnly.url, "/v1/nodes"));
  httpRows.push(await loadRow("api-only controller", apiOnly.url, "/v1/nodes", true));
  httpRows.push(await loadRow("api-only controller", apiOnly.url, `/v1/nodes?${sizeField}=100&page=3`));

  // --- tables ----------------------------------------------------------------------------------------------------
  printTable(
    [
      `presence, ${nodeCount} nodes beating every ${heartbeatMs / 1000} s (${windowS} s window)`,
      "figure",
      "target",
    ],
    [
      ["controller CPU (% of one core), no HTTP load", f1(controllerCpu), "≤ 20"],
      ["controller RSS MB before any node", f1(idleRssMb), ""],
      [
        "controller RSS MB (min–max in the window)",
        `${f1(Math.min(...rssSamples))}–${f1(Math.max(...rssSamples))}`,
        "",
      ],
      ["controller RSS MB after the HTTP load", f1(rssUnderLoad), ""],
      ["PostgreSQL backends of the database, CPU %", f1(pgCpu), ""],
      [
        "oldest last_seen in the table, s (steady / after the HTTP load)",
        `${f1(tableAgeSteady)} / ${f1(tableAgeLoaded)}`,
        `≈ ${heartbeatMs / 1000}`,
      ],
      ["simulator CPU % (load generator)", f1(simCpu), ""],
      ["all nodes online after the simulator's first round, s", f1(allOnlineS), ""],
    ],
  );
  process.stdout.write("\n");
  printTable(
    [
      `GET (${connections} connections, ${seconds} s, Form ${form.toUpperCase()})`,
      "req/s",
      "p50 ms",
      "p99 ms",
      "body on the wire",
      "errors",
    ],
    httpRows,
  );
  process.stdout.write("\n");
  printTable(["conditional GET", "304s", "p50 ms (304)", "p99 ms (304)"], [conditionalRow]);
  process.stdout.write("\n");
  printTable(
    [`node selection (automatic spread), in-process, heartbeats arriving`, "p50 ms", "p99 ms"],
    selectRows,
  );
  process.stdout.write("\n");
  printTable(
    [
      `offline detection (100 nodes stop; offline after ${offlineAfterMs / 1000} s)`,
      "p50 s",
      "max s",
      "seen",
    ],
    [
      [
        `last heartbeat → ${offlinePath} says offline`,
        f2(pct(detect, 50)),
        f2(Math.max(...detect)),
        `${seenOffline.size}/${victims.length}`,
      ],
    ],
  );
  process.stdout.write(
    `\n(Node ${process.version}; load average ${load0.toFixed(2)} before, ${loadavg()[0]!.toFixed(2)} after: ` +
      "the load generator, simulator, nats-server and PostgreSQL share the machine)\n",
  );
} finally {
  await apiOnly?.stop();
  await controller.stop();
  sim.kill("SIGTERM");
  await db.close();
  await nats.stop();
  const cleanup = await connectDb({ databaseUrl: adminUrl(), dataDir: "unused", maxConnections: 1 });
  await sql.raw(`drop database if exists ${dbName} with (force)`).execute(cleanup.kysely);
  await cleanup.close();
  rmSync(dir, { recursive: true, force: true });
}
