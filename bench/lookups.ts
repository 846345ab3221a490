import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { answerIp, ipLookup, openIpData } from "@vantage/lookups";
import { publicAddresses } from "./lib/addresses.js";
import { bestOf, better, httpRounds, load, printTable, startServer } from "./lib/run.js";

/**
 * `pnpm bench:lookups`:
 * 1. in-process IP lookups per second over a mixed set (3 IPv4 : 1 IPv6 public addresses spread over the
 *    whole space), through the data (`find`), through the whole lookup (input parsing included) and the
 *    floor of an awaited call (`find` awaited): interleaved, a pass of each per round, the best of
 *    BENCH_ROUNDS (10) rounds each;
 * 2. the resident memory the loaded IP data adds to a fresh process (RSS after a GC, before and after
 *    opening from the compiled cache);
 * 3. HTTP `GET /v1/info/ip` req/s against a bare Hono hello-world, each server in its own process, loaded
 *    by autocannon (32 connections, 5 s after 1 s warm-up; the best of BENCH_HTTP_ROUNDS (2) rounds, the
 *    two addresses alternating). The controller runs as a newcomer runs it
 *    (embedded PGlite, access log on), its lookup quota lifted so every request is answered.
 */
const seconds = Number(process.env.BENCH_SECONDS ?? 5);
/** Rounds of the in-process figures, one pass over the address set each; the best round counts. */
const rounds = Number(process.env.BENCH_ROUNDS ?? 10);
const root = new URL("..", import.meta.url).pathname;
const cacheDir = process.env.BENCH_IP_CACHE_DIR ?? mkdtempSync(join(tmpdir(), "vantage-bench-ip-"));
const gc = (globalThis as { gc?: () => void }).gc;

function rssMb(): number {
  gc?.();
  return process.memoryUsage().rss / 1024 / 1024;
}

// `--memory`: this process only opens the data (from the cache the parent compiled) and reports the RSS
// it added, so nothing else the benchmark does (the compile's garbage, the address set) is counted.
if (process.argv.includes("--memory")) {
  const before = rssMb();
  const opened = await openIpData({ cacheDir });
  opened.find("8.8.8.8");
  process.stdout.write(JSON.stringify({ addedMb: rssMb() - before }));
  process.exit(0);
}

// Compiled once into the cache directory (a first start's cost), then opened as every later start does.
const compileStart = performance.now();
await openIpData({ cacheDir });
const compileMs = performance.now() - compileStart;
const openStart = performance.now();
const data = await openIpData({ cacheDir });
const openMs = performance.now() - openStart;
const memory = JSON.parse(
  execFileSync(
    process.execPath,
    ["--expose-gc", "--import", "tsx", new URL(import.meta.url).pathname, "--memory"],
    {
      env: { ...process.env, BENCH_IP_CACHE_DIR: cacheDir },
      encoding: "utf8",
    },
  ),
) as { addedMb: number };

const set = publicAddresses(100_000);
const ctx = { allowPrivate: false, ipData: data };
// One function per figure, each calling one thing: a loop shared by two callees would make its call
// site polymorphic and measure the call, not the lookup.
const perSecond = (started: number) => set.length / ((performance.now() - started) / 1000);
function findPass(): number {
  const started = performance.now();
  for (const ip of set) data.find(ip);
  return perSecond(started);
}
function answerPass(): number {
  const started = performance.now();
  for (const ip of set) answerIp(ip, data);
  return perSecond(started);
}
/**
 * The floor of any lookup that answers with a promise: the data's `find()` itself, its answer wrapped in a
 * resolved promise and awaited, one at a time. `run()` can come near it, not past it.
 */
async function awaitedFindPass(): Promise<number> {
  const started = performance.now();
  for (const ip of set) await Promise.resolve(data.find(ip));
  return perSecond(started);
}
/** The whole lookup as the router's handler awaits it: one promise per lookup, one at a time. */
async function runPass(): Promise<number> {
  const started = performance.now();
  for (const ip of set) await ipLookup.run({ ip }, ctx);
  return perSecond(started);
}
// The three side by side, one pass of each per round (after a warm-up round), and each one's best round:
// a burst of other work on the machine then slows one round of all three, not one of them (issue #31).
let findRate = 0;
let answerRate = 0;
let runRate = 0;
let awaitedRate = 0;
for (let round = 0; round <= rounds; round++) {
  const find = findPass();
  const answer = answerPass();
  const awaited = await awaitedFindPass();
  const run = await runPass();
  if (round === 0) continue;
  findRate = Math.round(Math.max(findRate, find));
  answerRate = Math.round(Math.max(answerRate, answer));
  awaitedRate = Math.round(Math.max(awaitedRate, awaited));
  runRate = Math.round(Math.max(runRate, run));
}
rmSync(cacheDir, { recursive: true, force: true });

printTable(
  ["in-process IP data", "value"],
  [
    ["data version", data.version],
    ["first start: compile + open, ms", compileMs.toFixed(0)],
    ["later start: open, ms", openMs.toFixed(0)],
    ["RSS added by the loaded data, MB (fresh process)", memory.addedMb.toFixed(1)],
    [`find() lookups/s (3:1 IPv4:IPv6; best of ${rounds} interleaved rounds)`, findRate.toLocaleString("en")],
    [
      "answerIp() lookups/s (parse once, classify, find, result; the direct route's call)",
      `${answerRate.toLocaleString("en")} (${(answerRate / findRate).toFixed(2)} of find)`,
    ],
    [
      "find() awaited one at a time (the floor of any lookup answering with a promise)",
      `${awaitedRate.toLocaleString("en")} (${(awaitedRate / findRate).toFixed(2)} of find)`,
    ],
    [
      "ipLookup.run() lookups/s (the same, awaited one at a time)",
      `${runRate.toLocaleString("en")} (${(runRate / findRate).toFixed(2)} of find, aim ≥ 0.7; ` +
        `${(runRate / awaitedRate).toFixed(2)} of the awaited floor)`,
    ],
  ],
);
process.stdout.write("\n");

const dataDir = mkdtempSync(join(tmpdir(), "vantage-bench-"));
const hello = await startServer(join(root, "bench/servers/hello.ts"));
const loadHello = () => load("hono hello-world", `${hello.url}/`, { seconds });
const baseline = await bestOf(loadHello);
await hello.stop();
const controller = await startServer(join(root, "apps/controller/src/main.ts"), {
  VANTAGE_DATA_DIR: dataDir,
  VANTAGE_PLAN_LIMITS: JSON.stringify({ anonymous: { lookups_per_minute: null, lookups_per_day: null } }),
  VANTAGE_LOG_LEVEL: process.env.VANTAGE_LOG_LEVEL ?? "info",
});
const query = process.env.VANTAGE_API_FORM === "a" ? "q" : "ip";
const loadIp = (ip: string) =>
  load(`controller GET /v1/info/ip (${ip})`, `${controller.url}/v1/info/ip?${query}=${ip}`, { seconds });
// The two addresses alternate, round after round: in single runs the first load after the controller's
// start ran at half the second's rate or less (start-up work and compilation still going on), which made
// whichever address went first look slow.
let v4 = await loadIp("8.8.8.8");
let v6 = await loadIp("2001:4860:4860::8888");
for (let round = 1; round < httpRounds; round++) {
  v4 = better(v4, await loadIp("8.8.8.8"));
  v6 = better(v6, await loadIp("2001:4860:4860::8888"));
}
await controller.stop();
rmSync(dataDir, { recursive: true, force: true });

printTable(
  ["server / route", "req/s", "p50 ms", "p99 ms", "errors", "req/s vs hello-world"],
  [baseline, v4, v6].map((r) => [r.name, r.rps, r.p50, r.p99, r.errors, (r.rps / baseline.rps).toFixed(2)]),
);
process.stdout.write("\n(aim: /v1/info/ip ≥ 0.6 of the hello-world of the same run, issue #31)\n");
