import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Worker } from "node:worker_threads";
import { leanClient } from "./lib/client.js";
import { printTable, startServer } from "./lib/run.js";

/**
 * `pnpm bench:hostile-body`: what a hostile request body costs the controller. Two parts, one table each.
 *
 * 1. Per shape (one controller process: Form B, embedded PGlite, access log on, as a newcomer runs it, the
 *    refused-request limit off so every body is judged): ~1 MiB JSON bodies of pathological shapes,
 *    sequentially over one kept-alive connection, BENCH_REQUESTS (default 20) of each:
 *    - to POST /v1/none (no such route): the body guard alone (read, nesting pre-scan, parse, text walk);
 *    - to POST /v1/probe/<type>: the same plus the count/size pre-check and the route's validation, with the
 *      server's CPU per body (from /proc: 10 ms ticks over the requests);
 *    then two connections send it back to back for BENCH_SECONDS (default 3) while a third samples
 *    GET /healthz. Target: every 1 MiB body decided in <= 50 ms of CPU.
 * 2. Eight hostile clients (BENCH_CLIENTS) send such bodies back to back for BENCH_LOAD_SECONDS (20) while /healthz
 *    is sampled, against a controller without the refused-request limit (VANTAGE_REFUSED_LIMIT_IP=0, every
 *    body read and judged: what it was before) and one with the default (60 refusals a minute per client
 *    IP, then 429 before the body is read). Target: /healthz p99 within 2x of the idle p99.
 * Every loop is bounded.
 */
const requests = Number(process.env.BENCH_REQUESTS ?? 20);
const seconds = Number(process.env.BENCH_SECONDS ?? 3);
const hostileClients = Number(process.env.BENCH_CLIENTS ?? 8);
/** Part 2 runs longer: past a minute's first refusals, which are judged in full, the limit answers. */
const loadSeconds = Number(process.env.BENCH_LOAD_SECONDS ?? 20);
const root = new URL("..", import.meta.url).pathname;

/** Just under the default 1 MiB body limit, so every body is read and judged, none refused for size. */
const SIZE = 1_040_000;
const fill = (item: string, overhead = 2) => Math.floor((SIZE - overhead) / (item.length + 1));
const list = (item: string, n = fill(item)) => Array(n).fill(item).join(",");

/** ~1 MiB of `headers` for an http probe: 9,000 entries where 20 are allowed (issue 26). */
const manyHeaders = (name: (i: number) => string, value: string) =>
  `{"url":"https://example.com/","headers":{${Array.from(
    { length: 9_000 },
    (_, i) => `${JSON.stringify(name(i))}:${JSON.stringify(value)}`,
  ).join(",")}}}`;

/** `route`: the probe type the body goes to (tcp unless said). */
const shapes: { name: string; body: () => string; route?: string }[] = [
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
  {
    name: "probe body, 9,999 bad node ids",
    body: () => `{"host":"example.com","port":443,"nodes":[${list(`"${"X".repeat(90)}"`, 9_999)}]}`,
  },
  {
    name: "http probe, 9,000 headers (issue 26)",
    route: "http",
    body: () => manyHeaders((i) => `X-Header-${i}`, "v".repeat(96)),
  },
  {
    name: "http probe, 9,000 bad header names",
    route: "http",
    body: () => manyHeaders((i) => `bad name ${i}`, "v".repeat(96)),
  },
  {
    name: "http probe, 9,000 bad header values",
    route: "http",
    body: () => manyHeaders((i) => `X-Header-${i}`, `${"v".repeat(44)}\n${"v".repeat(44)}`),
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

const ratio = (loaded: number, idle: number) => `${(loaded / idle).toFixed(1)}x`;

/** GET /healthz for one second, idle: the baseline latencies. */
function idleHealth(health: ReturnType<typeof leanClient>) {
  const end = performance.now() + 1000;
  return sampleHealth(health, () => performance.now() > end);
}

/** Part 1: each shape alone, then two connections sending it while /healthz is sampled. */
async function perShape(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), "vantage-bench-hostile-"));
  const server = await startServer(join(root, "apps/controller/src/main.ts"), {
    VANTAGE_DATA_DIR: dataDir,
    VANTAGE_API_FORM: "b",
    VANTAGE_PLAN_LIMITS: JSON.stringify({ anonymous: { node_probes_per_hour: null } }),
    VANTAGE_REFUSED_LIMIT_IP: "0",
    VANTAGE_LOG_LEVEL: process.env.VANTAGE_LOG_LEVEL ?? "warn",
  });
  try {
    const client = leanClient(server.url);
    const health = leanClient(server.url);
    // Warm-up: JIT, the route tables, the first database round trips.
    for (let i = 0; i < 200; i++) await health.send("GET", "/healthz");
    await timed(client, "/v1/probe/tcp", '{"host":"example.com","port":443}', 20);
    const idle = await idleHealth(health);
    const rssBefore = await rssMiB(server.url);

    const rows: (string | number)[][] = [];
    let worstCpu = { ms: 0, shape: "" };
    for (const shape of shapes) {
      const body = shape.body();
      if (Buffer.byteLength(body) > 1024 * 1024) throw new Error(`${shape.name}: body over 1 MiB`);
      const path = `/v1/probe/${shape.route ?? "tcp"}`;
      const guard = await timed(client, "/v1/none", body, requests);
      const cpuStart = server.cpuSeconds();
      const route = await timed(client, path, body, requests);
      const cpuMs = ((server.cpuSeconds() - cpuStart) * 1000) / requests;
      if (cpuMs > worstCpu.ms) worstCpu = { ms: cpuMs, shape: shape.name };
      // Under load: two connections sending the body back to back while /healthz is sampled.
      const end = performance.now() + seconds * 1000;
      const over = () => performance.now() > end;
      const senders = [leanClient(server.url), leanClient(server.url)];
      let sent = 0;
      const [healthUnderLoad] = await Promise.all([
        sampleHealth(health, over),
        ...senders.map(async (s) => {
          while (!over()) {
            await attempt(s, path, body);
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
        `${shape.route ?? "tcp"}: ${route.statuses}`,
        `${ms(percentile(route.times, 50))} / ${ms(percentile(route.times, 99))}`,
        ms(cpuMs),
        Math.round(sent / seconds),
        `${ms(percentile(healthUnderLoad, 50))} / ${ms(percentile(healthUnderLoad, 99))} / ${ms(healthUnderLoad.at(-1) ?? Number.NaN)}${healthUnderLoad.failed ? ` (${healthUnderLoad.failed} failed)` : ""}`,
      ]);
    }
    const rssAfter = await rssMiB(server.url);
    client.close();
    health.close();

    process.stdout.write(
      `\n## Per shape: ${requests} sequential requests per shape and route; then ${seconds} s of two connections sending it while /healthz is sampled (refused-request limit off)\n` +
        `Idle /healthz p50 / p99: ${ms(percentile(idle, 50))} / ${ms(percentile(idle, 99))} ms. ` +
        `Server RSS: ${rssBefore} MiB before, ${rssAfter} MiB after. ` +
        `Most CPU per body on a probe route: ${ms(worstCpu.ms)} ms (${worstCpu.shape}); target <= 50 ms: ` +
        `${worstCpu.ms <= 50 ? "met" : "NOT met"}.\n\n`,
    );
    printTable(
      [
        "shape",
        "size",
        "status (guard only)",
        "guard only p50 / p99 ms",
        "status (probe route)",
        "probe route p50 / p99 ms",
        "CPU ms / body (route)",
        "hostile req/s (2 conns)",
        "/healthz meanwhile p50 / p99 / max ms",
      ],
      rows,
    );
  } finally {
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** The bodies the hostile clients send, in turn: the costliest refused shapes of part 1. */
const hostileMix = [
  { path: "/v1/probe/http", body: manyHeaders((i) => `bad name ${i}`, "v".repeat(96)) },
  { path: "/v1/probe/http", body: manyHeaders((i) => `X-Header-${i}`, "v".repeat(96)) },
  {
    path: "/v1/probe/tcp",
    body: `{"host":"example.com","port":443,"nodes":[${list(`"${"X".repeat(90)}"`, 9_999)}]}`,
  },
  { path: "/v1/probe/tcp", body: `[${list(JSON.stringify("x".repeat(100)), 9_999)}]` },
];

/**
 * The hostile clients (plain JavaScript, run by a worker thread): each sends the mix's bodies in turn over
 * its own kept-alive connection until the time is up, then the worker posts the answers' counts.
 */
const hostileClientsCode = `
const { workerData, parentPort } = require("node:worker_threads");
const http = require("node:http");
const { url, ms, clients, mix } = workerData;
const base = new URL(url);
const end = Date.now() + ms;
const counts = new Map();
const count = (k) => counts.set(k, (counts.get(k) || 0) + 1);
const send = (agent, { path, body }) => new Promise((resolve) => {
  const req = http.request({ host: base.hostname, port: base.port, path, method: "POST", agent,
    headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body) } }, (res) => {
    res.resume();
    res.on("end", () => resolve(String(res.statusCode)));
  });
  req.on("error", (e) => resolve(e.code === "ECONNRESET" ? "reset" : "error"));
  req.end(body);
});
Promise.all(Array.from({ length: clients }, async (_, k) => {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  for (let i = k; Date.now() < end; i++) count(await send(agent, mix[i % mix.length]));
  agent.destroy();
})).then(() => parentPort.postMessage([...counts]));
`;

/** Part 2: `hostileClients` clients sending refused bodies while /healthz is sampled, per refused limit. */
async function hostileLoad(limit: string): Promise<(string | number)[]> {
  const dataDir = mkdtempSync(join(tmpdir(), "vantage-bench-hostile-"));
  const server = await startServer(join(root, "apps/controller/src/main.ts"), {
    VANTAGE_DATA_DIR: dataDir,
    VANTAGE_API_FORM: "b",
    VANTAGE_PLAN_LIMITS: JSON.stringify({ anonymous: { node_probes_per_hour: null } }),
    VANTAGE_REFUSED_LIMIT_IP: limit,
    VANTAGE_LOG_LEVEL: process.env.VANTAGE_LOG_LEVEL ?? "warn",
  });
  try {
    const health = leanClient(server.url);
    for (let i = 0; i < 200; i++) await health.send("GET", "/healthz");
    const idle = await idleHealth(health);
    const end = performance.now() + loadSeconds * 1000;
    const over = () => performance.now() > end;
    const cpuStart = server.cpuSeconds();
    // The hostile clients run in a worker thread: their writes must not delay this thread's samples.
    const hostile = new Worker(hostileClientsCode, {
      eval: true,
      workerData: { url: server.url, ms: loadSeconds * 1000, clients: hostileClients, mix: hostileMix },
    });
    const [loaded, statuses] = await Promise.all([
      sampleHealth(health, over),
      new Promise<Map<string, number>>((resolve, reject) => {
        hostile.once("message", (m: [string, number][]) => resolve(new Map(m)));
        hostile.once("error", reject);
      }),
    ]);
    await hostile.terminate();
    const cpu = server.cpuSeconds() - cpuStart;
    health.close();
    const sent = [...statuses.values()].reduce((a, b) => a + b, 0);
    const idleP99 = percentile(idle, 99);
    const loadedP99 = percentile(loaded, 99);
    return [
      limit === "0" ? "off (every body read and judged)" : `${limit} refusals/min per IP`,
      `${ms(percentile(idle, 50))} / ${ms(idleP99)}`,
      `${ms(percentile(loaded, 50))} / ${ms(loadedP99)} / ${ms(loaded.at(-1) ?? Number.NaN)}${loaded.failed ? ` (${loaded.failed} failed)` : ""}`,
      ratio(loadedP99, idleP99),
      loadedP99 <= 2 * idleP99 ? "met" : "NOT met",
      Math.round(sent / loadSeconds),
      [...statuses.entries()].map(([k, v]) => `${k}×${v}`).join(" "),
      `${Math.round((cpu / loadSeconds) * 100)} %`,
    ];
  } finally {
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const part = process.env.BENCH_PART;
if (part !== "2") await perShape();
if (part !== "1") {
  const rows = [await hostileLoad("0"), await hostileLoad("60")];
  process.stdout.write(
    `\n## ${hostileClients} hostile clients, ${loadSeconds} s: ~1 MiB refused bodies back to back (9,000 headers, 9,999 bad node ids, a 10,000-value array) while /healthz is sampled\n\n`,
  );
  printTable(
    [
      "refused-request limit",
      "/healthz idle p50 / p99 ms",
      "/healthz loaded p50 / p99 / max ms",
      "p99 loaded / idle",
      "target <= 2x",
      "hostile req/s",
      "answers",
      "server CPU",
    ],
    rows,
  );
}
