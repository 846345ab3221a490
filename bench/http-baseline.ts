import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readMainProfile, summarizeWindow } from "./lib/cpu-profile.js";
import { type LoadResult, load, printTable, startServer } from "./lib/run.js";

/**
 * `pnpm bench:http`: the controller's GET /healthz and GET /v1/nodes against a bare Hono hello-world, each
 * server in its own process, loaded by autocannon from this one (32 connections, BENCH_SECONDS (5) after
 * 1 s warm-up). The controller runs as `pnpm start` runs it: the built output (`pnpm build` first when
 * stale), embedded PGlite, access log on (to /dev/null, as to a file).
 *
 * The phases are interleaved over BENCH_ROUNDS rounds (3): hello-world, /healthz, /v1/nodes, again and
 * again, and each figure is the median of its rounds. On a shared 2-core machine a server's req/s drifts by
 * a third over minutes; interleaving puts each server under the same drift. The server not being measured
 * is stopped (SIGSTOP) meanwhile, so its timers (the controller's presence and scheduler) take nothing
 * from the other.
 *
 * BENCH_CONTROLLER=<path of a built main.mjs> measures another build (e.g. an earlier commit's, built into
 * a folder beside apps/controller/dist so its packages resolve) in place of the current one.
 * BENCH_COMPARE=<path of a built main.mjs> measures such a build as well, in the same rounds (its two routes
 * after the current build's): a before/after in one run, both under the same drift.
 *
 * BENCH_PROFILE=1 also runs both servers under `--cpu-prof` and prints where their CPU went while each
 * route was loaded in the last round (self time of the busy samples, by area and by function). Profiling
 * slows them down: read the req/s of a profiled run only against each other.
 */
const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const rounds = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 3));
const profile = process.env.BENCH_PROFILE === "1";
const root = new URL("..", import.meta.url).pathname;
const dataDir = mkdtempSync(join(tmpdir(), "vantage-bench-"));
const profileDir = mkdtempSync(join(tmpdir(), "vantage-bench-prof-"));
const helloProfileDir = mkdtempSync(join(tmpdir(), "vantage-bench-prof-"));

execFileSync(process.execPath, [join(root, "scripts/build.mjs"), "--if-stale", "web", "controller"], {
  stdio: "inherit",
});

const hello = await startServer(
  join(root, "bench/servers/hello.ts"),
  {},
  profile ? ["--cpu-prof", `--cpu-prof-dir=${helloProfileDir}`] : [],
);
const controller = await startServer(
  process.env.BENCH_CONTROLLER ?? join(root, "apps/controller/dist/main.mjs"),
  { VANTAGE_DATA_DIR: dataDir, VANTAGE_LOG_LEVEL: process.env.VANTAGE_LOG_LEVEL ?? "info" },
  profile ? ["--cpu-prof", `--cpu-prof-dir=${profileDir}`] : [],
);

const compareDir = process.env.BENCH_COMPARE ? mkdtempSync(join(tmpdir(), "vantage-bench-")) : undefined;
const compared =
  process.env.BENCH_COMPARE && compareDir
    ? await startServer(process.env.BENCH_COMPARE, {
        VANTAGE_DATA_DIR: compareDir,
        VANTAGE_LOG_LEVEL: process.env.VANTAGE_LOG_LEVEL ?? "info",
      })
    : undefined;
const servers = compared ? [hello, controller, compared] : [hello, controller];

const targets = [
  { name: "hono hello-world", server: hello, url: `${hello.url}/` },
  { name: "controller GET /healthz", server: controller, url: `${controller.url}/healthz` },
  { name: "controller GET /v1/nodes", server: controller, url: `${controller.url}/v1/nodes` },
  ...(compared
    ? [
        { name: "compared GET /healthz", server: compared, url: `${compared.url}/healthz` },
        { name: "compared GET /v1/nodes", server: compared, url: `${compared.url}/v1/nodes` },
      ]
    : []),
];
interface Phase {
  result: LoadResult;
  from: number;
  to: number;
}
const phases: Phase[][] = targets.map(() => []);
for (let round = 0; round < rounds; round++) {
  for (const [i, t] of targets.entries()) {
    for (const other of servers) if (other !== t.server) other.pause();
    t.server.resume();
    const result = await load(t.name, t.url, { seconds, cpu: t.server.cpuSeconds });
    // The load phase is the last `seconds` before now (the warm-up second comes before it).
    const to = Date.now();
    phases[i]!.push({ result, from: to - seconds * 1000, to });
  }
}
for (const server of servers) server.resume();
if (compared) await compared.stop();
if (compareDir) rmSync(compareDir, { recursive: true, force: true });
await hello.stop();
const helloExited = Date.now();
await controller.stop();
const exited = Date.now();
rmSync(dataDir, { recursive: true, force: true });

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
const summary = targets.map((t, i) => {
  const rs = phases[i]!.map((p) => p.result);
  return {
    name: t.name,
    rps: Math.round(median(rs.map((r) => r.rps))),
    each: rs.map((r) => r.rps),
    p50: median(rs.map((r) => r.p50)),
    p99: median(rs.map((r) => r.p99)),
    errors: rs.reduce((n, r) => n + r.errors, 0),
    cpuUs: rs.every((r) => r.cpuUs !== undefined) ? median(rs.map((r) => r.cpuUs!)) : undefined,
  };
});
const baseline = summary[0]!;
console.log(`\n${rounds} round(s) of ${seconds} s per phase, interleaved; medians:`);
printTable(
  [
    "server / route",
    "req/s (median)",
    "each round",
    "p50 ms",
    "p99 ms",
    "errors",
    "server CPU µs/request",
    "req/s vs hello-world",
  ],
  summary.map((r) => [
    r.name,
    r.rps,
    r.each.join(" · "),
    r.p50,
    r.p99,
    r.errors,
    r.cpuUs?.toFixed(1) ?? "",
    (r.rps / baseline.rps).toFixed(2),
  ]),
);
console.log("\nEach round's ratio (the same round's hello-world):");
printTable(
  ["round", ...summary.slice(1).map((r) => r.name)],
  Array.from({ length: rounds }, (_, k) => [
    k + 1,
    ...summary.slice(1).map((r) => (r.each[k]! / baseline.each[k]!).toFixed(2)),
  ]),
);

if (profile) {
  const cpu = readMainProfile(profileDir);
  const helloCpu = readMainProfile(helloProfileDir);
  const windows = targets.slice(0, 3).map((t, i) => ({
    cpu: t.server === hello ? helloCpu : cpu,
    exited: t.server === hello ? helloExited : exited,
    ...phases[i]!.at(-1)!,
  }));
  for (const w of windows) {
    // A little inside each phase, so the edges (warm-up, the next phase) stay out.
    const summary = summarizeWindow(w.cpu, w.exited - w.from - 250, w.exited - w.to + 250, 15);
    const requests = w.result.rps * (seconds - 0.5);
    console.log(
      `\nCPU profile, ${w.result.name} (last round): busy ${summary.busyMs.toFixed(0)} ms of ${(seconds - 0.5) * 1000} ms, ` +
        `${((summary.busyMs * 1000) / requests).toFixed(1)} µs of CPU per request`,
    );
    printTable(
      ["area", "% of busy"],
      summary.byArea.map((s) => [s.name, s.percent.toFixed(1)]),
    );
    printTable(
      ["function (self time)", "% of busy"],
      summary.byFunction.map((s) => [s.name, s.percent.toFixed(1)]),
    );
  }
}
rmSync(profileDir, { recursive: true, force: true });
rmSync(helloProfileDir, { recursive: true, force: true });
