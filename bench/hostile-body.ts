import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { leanClient } from "./lib/client.js";
import { printTable, startServer } from "./lib/run.js";

/**
 * `pnpm bench:hostile-body`: what a hostile request body costs the controller. One controller process
 * (Form B, embedded PGlite, access log on, as a newcomer runs it) gets ~1 MiB JSON bodies of pathological
 * shapes, sequentially over one kept-alive connection, BENCH_REQUESTS (default 20) of each:
 *  - to POST /v1/none (no such route): the body guard alone (read, nesting pre-scan, parse, text walk), then 404;
 *  - to POST /v1/probe/tcp: the same plus the route's validation.
 * Then the same bodies are sent back to back from two connections for BENCH_SECONDS (default 3) while a
 * third samples GET /healthz, the event loop's delay as another client sees it. Every loop is bounded.
 * Target: < 50 ms per 1 MiB body whatever its shape; /healthz unharmed. Bodies over the nesting (64) or
 * value (10,000) limits are refused before parsing; the last shapes are the heaviest within them.
 */
const requests = Number(process.env.BENCH_REQUESTS ?? 20);
const seconds = Number(process.env.BENCH_SECONDS ?? 3);
const root = new URL("..", import.meta.url).pathname;

/** Just under the default 1 MiB body limit, so every body is read and judged, none refused for size. */
const SIZE = 1_040_000;
const fill = (item: string, overhead = 2) => Math.floor((SIZE - overhead) / (item.length + 1));
const list = (item: string, n = fill(item)) => Array(n).fill(item).join(",");

const shapes: { name: string; body: () => string }[] = [
  { name: "[ × 520k, closed (depth 520k)", body: () => `${"[".repeat(SIZE / 2)}${"]".repeat(SIZE / 2)}` },
  { name: "[ × 1M, unclosed", body: () => "[".repeat(SIZE) },
  { name: '{"a": × 200k (depth 200k)', body: () => `${'{"a":'.repeat(SIZE / 6)}1${"}".repeat(SIZE / 6)}` },
  {
    name: "depth 3,000 + 515k elements (issue 11)",
    body: () => `${"[".repeat(3_000)}${list("0", 515_000)}${"]".repeat(3_000)}`,
  },
  { name: "depth 64 + 500k elements", body: () => `${"[".repeat(64)}${list("0", 500_000)}${"]".repeat(64)}` },
  { name: "flat array of 520k zeros", body: () => `[${list("0")}]` },
  { name: "array of 260k empty arrays", body: () => `[${list("[]")}]` },
  { name: "array of 100k small objects", body: () => `[${list('{"a":"x"}')}]` },
  {
    name: "object with 70k keys",
    body: () => `{${Array.from({ length: 70_000 }, (_, i) => `"k${i}":${i}`).join(",")}}`,
  },
  { name: "one 1 MiB string", body: () => JSON.stringify("x".repeat(SIZE - 2)) },
  { name: "one string of 1M brackets", body: () => JSON.stringify("[".repeat(SIZE - 2)) },
  { name: "strings of escapes", body: () => `[${list('"\\u00e9\\n\\"\\\\"')}]` },
  { name: "array of 100k huge numbers", body: () => `[${list("1e999999")}]` },
  // The heaviest shapes within the limits (64 levels, 10,000 values): parsed, walked and validated.
  { name: "9,999 strings of 100 chars", body: () => `[${list(JSON.stringify("x".repeat(100)), 9_999)}]` },
  { name: "9,999 strings of 16 escapes", body: () => `[${list(`"${"\\u00e9".repeat(16)}"`, 9_999)}]` },
  {
    name: "object of 9,999 keys of 96 chars",
    body: () =>
      `{${Array.from({ length: 9_999 }, (_, i) => `"${String(i).padStart(96, "k")}":0`).join(",")}}`,
  },
  {
    name: "64 deep, 9,900 numbers + 980 KiB string",
    body: () =>
      `${"[".repeat(63)}${list("0", 9_900)},${JSON.stringify("x".repeat(980_000))}${"]".repeat(63)}`,
  },
  {
    name: "probe body, 60k node ids",
    body: () => `{"host":"example.com","port":443,"nodes":[${list('"fra1"', 60_000)}]}`,
  },
];

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}
const ms = (v: number) => v.toFixed(1);

/** One request; its status, or "reset" / "error" when the connection failed instead of answering. */
async function attempt(client: ReturnType<typeof leanClient>, path: string, body: string): Promise<string> {
  try {
    return String((await client.send("POST", path, body)).status);
  } catch (err) {
    return (err as { code?: string }).code === "ECONNRESET" ? "reset" : "error";
  }
}

/** Sends `body` `n` times in sequence; per-request times in ms, sorted, and the outcomes seen. */
async function timed(client: ReturnType<typeof leanClient>, path: string, body: string, n: number) {
  const times: number[] = [];
  const outcomes = new Set<string>();
  for (let i = 0; i < n; i++) {
    const start = performance.now();
    outcomes.add(await attempt(client, path, body));
    times.push(performance.now() - start);
  }
  return { times: times.sort((a, b) => a - b), statuses: [...outcomes].join("/") };
}

/** GET /healthz in sequence until `until()`; sorted latencies in ms (at most 100k samples), failures too. */
async function sampleHealth(client: ReturnType<typeof leanClient>, until: () => boolean) {
  const times: number[] = [];
  let failed = 0;
  while (!until() && times.length < 100_000) {
    const start = performance.now();
    await client.send("GET", "/healthz").catch(() => failed++);
    times.push(performance.now() - start);
  }
  return Object.assign(
    times.sort((a, b) => a - b),
    { failed },
  );
}

async function rssMiB(url: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const line = text.split("\n").find((l) => l.startsWith("vantage_process_resident_memory_bytes"));
  return Math.round(Number(line?.split(" ")[1] ?? Number.NaN) / 1024 / 1024);
}

const dataDir = mkdtempSync(join(tmpdir(), "vantage-bench-hostile-"));
const server = await startServer(join(root, "apps/controller/src/main.ts"), {
  VANTAGE_DATA_DIR: dataDir,
  VANTAGE_API_FORM: "b",
  VANTAGE_PLAN_LIMITS: JSON.stringify({ anonymous: { node_probes_per_hour: null } }),
  VANTAGE_LOG_LEVEL: process.env.VANTAGE_LOG_LEVEL ?? "warn",
});
try {
  const client = leanClient(server.url);
  const health = leanClient(server.url);
  // Warm-up: JIT, the route tables, the first database round trips.
  for (let i = 0; i < 200; i++) await health.send("GET", "/healthz");
  await timed(client, "/v1/probe/tcp", '{"host":"example.com","port":443}', 20);
  const idle = await sampleHealth(
    health,
    (() => {
      const end = performance.now() + 1000;
      return () => performance.now() > end;
    })(),
  );
  const rssBefore = await rssMiB(server.url);

  const rows: (string | number)[][] = [];
  for (const shape of shapes) {
    const body = shape.body();
    if (Buffer.byteLength(body) > 1024 * 1024) throw new Error(`${shape.name}: body over 1 MiB`);
    const guard = await timed(client, "/v1/none", body, requests);
    const route = await timed(client, "/v1/probe/tcp", body, requests);
    // Under load: two connections sending the body back to back while /healthz is sampled.
    const end = performance.now() + seconds * 1000;
    const over = () => performance.now() > end;
    const senders = [leanClient(server.url), leanClient(server.url)];
    let sent = 0;
    const [healthUnderLoad] = await Promise.all([
      sampleHealth(health, over),
      ...senders.map(async (s) => {
        while (!over()) {
          await attempt(s, "/v1/probe/tcp", body);
          sent++;
        }
        s.close();
      }),
    ]);
    rows.push([
      shape.name,
      `${Math.round(Buffer.byteLength(body) / 1024)} KiB`,
      guard.statuses,
      `${ms(percentile(guard.times, 50))} / ${ms(percentile(guard.times, 99))}`,
      route.statuses,
      `${ms(percentile(route.times, 50))} / ${ms(percentile(route.times, 99))}`,
      Math.round(sent / seconds),
      `${ms(percentile(healthUnderLoad, 50))} / ${ms(percentile(healthUnderLoad, 99))} / ${ms(healthUnderLoad.at(-1) ?? Number.NaN)}${healthUnderLoad.failed ? ` (${healthUnderLoad.failed} failed)` : ""}`,
    ]);
  }
  const rssAfter = await rssMiB(server.url);
  client.close();
  health.close();

  process.stdout.write(
    `\n${requests} sequential requests per shape and route; then ${seconds} s of two connections sending it while /healthz is sampled.\n` +
      `Idle /healthz p50 / p99: ${ms(percentile(idle, 50))} / ${ms(percentile(idle, 99))} ms. ` +
      `Server RSS: ${rssBefore} MiB before, ${rssAfter} MiB after.\n\n`,
  );
  printTable(
    [
      "shape",
      "size",
      "status (guard only)",
      "guard only p50 / p99 ms",
      "status (probe route)",
      "probe route p50 / p99 ms",
      "hostile req/s (2 conns)",
      "/healthz meanwhile p50 / p99 / max ms",
    ],
    rows,
  );
} finally {
  await server.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
