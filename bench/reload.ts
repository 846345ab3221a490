import { spawn } from "node:child_process";
import { copyFile, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { Agent, request } from "node:http";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { IpDataHolder, ReputationDataHolder } from "@vantage/lookups";
import { freePort, logLines, waitForPort } from "@vantage/testing";
import { assembleIpData, prepareIpData } from "../packages/lookups/src/ip/database.js";
import { printTable } from "./lib/run.js";

/**
 * `pnpm bench:reload`: what a SIGHUP reload of the IP and reputation data costs the requests a controller
 * serves meanwhile (issue #27 item 3). One controller process (`BENCH_CONTROLLER=<dist/main.mjs>` for the
 * build, else the sources through tsx) reads a copy of the shipped IP data from VANTAGE_IP_DATA_DIR; an
 * open-loop paced load (`BENCH_RATE` requests/s, alternating `GET /healthz` and `GET /v1/info/ip`) runs
 * throughout. Phases: normal (no reload), a reload of the same files (the compiled ASN table read from the
 * cache), and a reload of new data (VERSION changed: the ASN CSVs are compiled again). A reload's window
 * is from the signal to both "reloaded" log lines; latency is from a request's send to its whole answer.
 * Then, in this process: the event loop's delay (monitorEventLoopDelay, 1 ms resolution) while idle and
 * while the holders reload on their worker thread, and the swap's own block (assembleIpData: wrapping the
 * transferred bytes), timed 20 times.
 */
const rate = Number(process.env.BENCH_RATE ?? 200);
const normalSeconds = Number(process.env.BENCH_SECONDS ?? 3);
const root = new URL("..", import.meta.url).pathname;
const entry = process.env.BENCH_CONTROLLER ?? join(root, "apps/controller/src/main.ts");

const require = createRequire(join(root, "packages/lookups/package.json"));
const asnDir = dirname(require.resolve("@ip-location-db/asn/package.json"));
const mmdbDir = dirname(require.resolve("@ip-location-db/geo-whois-asn-country-mmdb/package.json"));

const work = await mkdtemp(join(tmpdir(), "vantage-bench-reload-"));
const ipDir = join(work, "ip");
await mkdir(ipDir);
await copyFile(join(mmdbDir, "geo-whois-asn-country.mmdb"), join(ipDir, "geo-whois-asn-country.mmdb"));
await copyFile(join(asnDir, "asn-ipv4.csv"), join(ipDir, "asn-ipv4.csv"));
await copyFile(join(asnDir, "asn-ipv6.csv"), join(ipDir, "asn-ipv6.csv"));
await writeFile(join(ipDir, "VERSION"), "bench.1\n");
// As an install does (scripts/ip-data-cache.ts): the controller starts from the compiled cache.
await prepareIpData({ dataDir: ipDir, cacheDir: join(work, "cache") });

const port = await freePort();
const child = spawn(process.execPath, [...(entry.endsWith(".ts") ? ["--import", "tsx"] : []), entry], {
  env: {
    ...process.env,
    PORT: String(port),
    HOST: "127.0.0.1",
    VANTAGE_DATA_DIR: join(work, "data"),
    VANTAGE_IP_DATA_DIR: ipDir,
    VANTAGE_IP_CACHE_DIR: join(work, "cache"),
    VANTAGE_LOG_LEVEL: "info",
    VANTAGE_ACCESS_LOG: "false",
    VANTAGE_PLAN_LIMITS: JSON.stringify({ anonymous: { lookups_per_minute: null, lookups_per_day: null } }),
  },
  stdio: ["ignore", "pipe", "inherit"],
});
const log = logLines(child);
const query = process.env.VANTAGE_API_FORM === "a" ? "q" : "ip";
const paths = ["/healthz", `/v1/info/ip?${query}=8.8.8.8`];

interface Sample {
  sentAt: number;
  latency: number;
  ok: boolean;
}

/** Open-loop GETs at `rate`/s until `stop()`: request i leaves at start + i / rate whatever the answers do. */
function pacedGets() {
  const agent = new Agent({ keepAlive: true, maxSockets: 64 });
  const samples: Sample[] = [];
  let sent = 0;
  let outstanding = 0;
  let halted = false;
  let done: (() => void) | undefined;
  const t0 = performance.now();
  const send = () => {
    const sentAt = performance.now();
    const path = paths[sent++ % paths.length] as string;
    outstanding++;
    const finish = (ok: boolean) => {
      samples.push({ sentAt, latency: performance.now() - sentAt, ok });
      outstanding--;
      if (halted && outstanding === 0) done?.();
    };
    const req = request({ host: "127.0.0.1", port, path, agent }, (res) => {
      res.resume();
      res.on("end", () => finish(res.statusCode === 200));
      res.on("error", () => finish(false));
    });
    req.on("error", () => finish(false));
    req.end();
  };
  const tick = () => {
    if (halted) return;
    const due = Math.floor(((performance.now() - t0) * rate) / 1000) + 1;
    while (sent < due) send();
    setTimeout(tick, 1);
  };
  tick();
  return {
    samples,
    async stop() {
      halted = true;
      if (outstanding > 0) await new Promise<void>((r) => (done = r));
      agent.destroy();
    },
  };
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

const rows: (string | number)[][] = [];
function report(name: string, samples: Sample[], from: number, to: number, windowMs?: number) {
  const inWindow = samples.filter((s) => s.sentAt >= from && s.sentAt < to);
  const ms = inWindow.map((s) => s.latency).sort((a, b) => a - b);
  rows.push([
    name,
    windowMs === undefined ? "–" : windowMs.toFixed(0),
    ms.length,
    inWindow.filter((s) => !s.ok).length,
    percentile(ms, 50).toFixed(1),
    percentile(ms, 99).toFixed(1),
    (ms.at(-1) ?? Number.NaN).toFixed(1),
  ]);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
let reloads = 0;
/** SIGHUP, then waits for both reloads' log lines (or their failures); the window in ms. */
async function reload(): Promise<{ from: number; to: number }> {
  reloads++;
  const seen = (msg: string) => log.lines.filter((l) => String(l.msg).startsWith(msg)).length;
  const ipBefore = seen("IP data reload");
  const repBefore = seen("reputation data reload");
  const from = performance.now();
  child.kill("SIGHUP");
  while (seen("IP data reload") === ipBefore || seen("reputation data reload") === repBefore) await sleep(5);
  return { from, to: performance.now() };
}

try {
  await waitForPort(port, "127.0.0.1", 240_000);
  const load = pacedGets();
  await sleep(1000); // warm-up
  const normalFrom = performance.now();
  await sleep(normalSeconds * 1000);
  const normalTo = performance.now();
  const same = await reload();
  await sleep(1000);
  await writeFile(join(ipDir, "VERSION"), "bench.2\n");
  const fresh = await reload();
  await sleep(1000);
  await load.stop();
  report("normal", load.samples, normalFrom, normalTo);
  report("SIGHUP, same files (cache hit)", load.samples, same.from, same.to, same.to - same.from);
  report("SIGHUP, new data (ASN compile)", load.samples, fresh.from, fresh.to, fresh.to - fresh.from);
  process.stdout.write(
    `controller: ${entry.replace(root, "")}; ${rate} req/s, /healthz and /v1/info/ip alternating; ${reloads} reloads\n`,
  );
  printTable(["phase", "reload ms", "requests", "failed", "p50 ms", "p99 ms", "max ms"], rows);
} finally {
  const exited = new Promise((r) => child.once("exit", r));
  child.kill("SIGTERM");
  await exited;
}

try {
  const cacheDir = join(work, "cache");
  const ip = await IpDataHolder.open({ dataDir: ipDir, cacheDir, offThread: true });
  const reputation = await ReputationDataHolder.open({ offThread: true });
  const delayOver = async (name: string, run: () => Promise<unknown>) => {
    const h = monitorEventLoopDelay({ resolution: 1 });
    const started = performance.now();
    h.enable();
    await run();
    h.disable();
    const ms = (ns: number) => (ns / 1e6).toFixed(1);
    return [
      name,
      (performance.now() - started).toFixed(0),
      ms(h.percentile(50)),
      ms(h.percentile(99)),
      ms(h.max),
    ];
  };
  const delays = [await delayOver("idle, 2 s", () => sleep(2000))];
  for (let i = 1; i <= 2; i++) delays.push(await delayOver(`IP data reload ${i}`, () => ip.reload()));
  for (let i = 1; i <= 2; i++) {
    delays.push(await delayOver(`reputation data reload ${i}`, () => reputation.reload()));
  }
  printTable(["in-process event loop", "ms", "delay p50 ms", "delay p99 ms", "delay max ms"], delays);
  const prepared = await prepareIpData({ dataDir: ipDir, cacheDir });
  const swaps: number[] = [];
  for (let i = 0; i < 20; i++) {
    const started = performance.now();
    assembleIpData(prepared).find("8.8.8.8");
    swaps.push(performance.now() - started);
  }
  swaps.sort((a, b) => a - b);
  process.stdout.write(
    `swap (assembleIpData on transferred bytes), 20 runs: min ${swaps[0]?.toFixed(2)} ms, median ${swaps[10]?.toFixed(2)} ms, max ${swaps[19]?.toFixed(2)} ms\n`,
  );
} finally {
  await rm(work, { recursive: true, force: true });
}
