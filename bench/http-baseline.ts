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
 * BENCH_CONTROLLER=<path of a built main.mjs> measures another build (e.g. an earlier commit's, built into
 * a folder beside apps/controller/dist so its packages resolve) in place of the current one.
 *
 * BENCH_PROFILE=1 also runs the controller under `--cpu-prof` and prints where its CPU went while each
 * route was loaded (self time of the busy samples, by area and by function). Profiling slows it down:
 * read the req/s of a profiled run only against each other.
 */
const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const profile = process.env.BENCH_PROFILE === "1";
const root = new URL("..", import.meta.url).pathname;
const dataDir = mkdtempSync(join(tmpdir(), "vantage-bench-"));
const profileDir = mkdtempSync(join(tmpdir(), "vantage-bench-prof-"));

execFileSync(process.execPath, [join(root, "scripts/build.mjs"), "--if-stale", "web", "controller"], {
  stdio: "inherit",
});

const helloProfileDir = mkdtempSync(join(tmpdir(), "vantage-bench-prof-"));
const hello = await startServer(
  join(root, "bench/servers/hello.ts"),
  {},
  profile ? ["--cpu-prof", `--cpu-prof-dir=${helloProfileDir}`] : [],
);
const baseline = await load("hono hello-world", `${hello.url}/`, { seconds, cpu: hello.cpuSeconds });
const helloTo = Date.now();
await hello.stop();
const helloExited = Date.now();

const controller = await startServer(
  process.env.BENCH_CONTROLLER ?? join(root, "apps/controller/dist/main.mjs"),
  { VANTAGE_DATA_DIR: dataDir, VANTAGE_LOG_LEVEL: process.env.VANTAGE_LOG_LEVEL ?? "info" },
  profile ? ["--cpu-prof", `--cpu-prof-dir=${profileDir}`] : [],
);
const phases: { result: LoadResult; from: number; to: number }[] = [];
for (const [name, path] of [
  ["controller GET /healthz", "/healthz"],
  ["controller GET /v1/nodes", "/v1/nodes"],
] as const) {
  const result = await load(name, `${controller.url}${path}`, { seconds, cpu: controller.cpuSeconds });
  // The load phase is the last `seconds` before now (the warm-up second comes before it).
  const to = Date.now();
  phases.push({ result, from: to - seconds * 1000, to });
}
await controller.stop();
const exited = Date.now();
rmSync(dataDir, { recursive: true, force: true });

printTable(
  ["server / route", "req/s", "p50 ms", "p99 ms", "errors", "server CPU µs/request", "req/s vs hello-world"],
  [baseline, ...phases.map((p) => p.result)].map((r) => [
    r.name,
    r.rps,
    r.p50,
    r.p99,
    r.errors,
    r.cpuUs?.toFixed(1) ?? "",
    (r.rps / baseline.rps).toFixed(2),
  ]),
);

if (profile) {
  const cpu = readMainProfile(profileDir);
  const helloCpu = readMainProfile(helloProfileDir);
  const windows = [
    { cpu: helloCpu, exited: helloExited, result: baseline, from: helloTo - seconds * 1000, to: helloTo },
    ...phases.map((p) => ({ cpu, exited, ...p })),
  ];
  for (const w of windows) {
    // A little inside each phase, so the edges (warm-up, the next phase) stay out.
    const summary = summarizeWindow(w.cpu, w.exited - w.from - 250, w.exited - w.to + 250, 15);
    const requests = w.result.rps * (seconds - 0.5);
    console.log(
      `\nCPU profile, ${w.result.name}: busy ${summary.busyMs.toFixed(0)} ms of ${(seconds - 0.5) * 1000} ms, ` +
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
