import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { load, printTable, startServer } from "./lib/run.js";

/**
 * `pnpm bench:http`: the controller's GET /healthz and GET /v1/nodes against a bare Hono hello-world, each
 * server in its own process, loaded by autocannon from this one (32 connections, 5 s after 1 s warm-up).
 * The controller runs as a newcomer runs it (embedded PGlite, access log on).
 */
const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const root = new URL("..", import.meta.url).pathname;
const dataDir = mkdtempSync(join(tmpdir(), "vantage-bench-"));

const hello = await startServer(join(root, "bench/servers/hello.ts"));
const baseline = await load("hono hello-world", `${hello.url}/`, { seconds });
await hello.stop();

const controller = await startServer(join(root, "apps/controller/src/main.ts"), {
  VANTAGE_DATA_DIR: dataDir,
  VANTAGE_LOG_LEVEL: process.env.VANTAGE_LOG_LEVEL ?? "info",
});
const healthz = await load("controller GET /healthz", `${controller.url}/healthz`, { seconds });
const nodes = await load("controller GET /v1/nodes", `${controller.url}/v1/nodes`, { seconds });
await controller.stop();
rmSync(dataDir, { recursive: true, force: true });

printTable(
  ["server / route", "req/s", "p50 ms", "p99 ms", "errors", "req/s vs hello-world"],
  [baseline, healthz, nodes].map((r) => [
    r.name,
    r.rps,
    r.p50,
    r.p99,
    r.errors,
    (r.rps / baseline.rps).toFixed(2),
  ]),
);
