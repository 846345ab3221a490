import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../apps/controller/src/config.js";
import { createLogger } from "../apps/controller/src/logger.js";
import { createCredentialVerifier } from "../apps/controller/src/modules/accounts/credentials.js";
import { tokenKey } from "../apps/controller/src/modules/accounts/tokens.js";
import { startRuntime } from "../apps/controller/src/runtime.js";
import { registerWithKey } from "./lib/accounts.js";
import { load, printTable, startServer } from "./lib/run.js";

/**
 * `pnpm bench:auth`: what authentication costs. `GET /v1/account/profile` with an API key and with a JWT
 * against the public `GET /v1/nodes`, measured two ways in one run:
 *  1. in process through `app.fetch`, one request at a time (per-request µs; the key check is cached after
 *     the first call, the JWT's session row likewise), so the difference is the credential check itself;
 *  2. over real HTTP on loopback with autocannon (16 connections, BENCH_SECONDS each after a 1 s warm-up)
 *     against the controller in its own process.
 * Both use embedded PGlite with the access log off. Target: the cached key check adds ≤ 0.3 ms at p50.
 */
const seconds = Number(process.env.BENCH_SECONDS ?? 3);
const iterations = Number(process.env.BENCH_ITERATIONS ?? 4000);
const root = new URL("..", import.meta.url).pathname;

const setUp = registerWithKey;

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

// ---- 1. in process ----
const dataDir = mkdtempSync(join(tmpdir(), "vantage-bench-auth-"));
const config = loadConfig({
  VANTAGE_DATA_DIR: dataDir,
  VANTAGE_ACCESS_LOG: "false",
  VANTAGE_LOG_LEVEL: "silent",
});
const runtime = await startRuntime(config, createLogger("silent"));
const call = async (path: string, init?: RequestInit) => runtime.app.request(path, init);
const creds = await setUp(call);

const cases: { name: string; path: string; headers: Record<string, string> }[] = [
  { name: "GET /v1/nodes (public)", path: "/v1/nodes", headers: {} },
  {
    name: "GET /v1/account/profile, API key",
    path: "/v1/account/profile",
    headers: { "x-api-key": creds.apiKey },
  },
  {
    name: "GET /v1/account/profile, JWT",
    path: "/v1/account/profile",
    headers: { authorization: `Bearer ${creds.jwt}` },
  },
];

const inProcess: { name: string; p50: number; p99: number }[] = [];
for (const c of cases) {
  for (let i = 0; i < 300; i++) await (await call(c.path, { headers: c.headers })).arrayBuffer();
  const times: number[] = [];
  for (let i = 0; i < iterations; i++) {
    const start = performance.now();
    const res = await call(c.path, { headers: c.headers });
    await res.arrayBuffer();
    times.push(performance.now() - start);
    if (res.status !== 200) throw new Error(`${c.name}: status ${res.status}`);
  }
  times.sort((a, b) => a - b);
  inProcess.push({ name: c.name, p50: percentile(times, 50), p99: percentile(times, 99) });
}
// The credential check alone (the middleware's work), cached as in the routes above.
const verifier = createCredentialVerifier({
  db: runtime.db.kysely,
  log: createLogger("silent"),
  form: runtime.config.VANTAGE_API_FORM,
  jwtKey: tokenKey(runtime.config.VANTAGE_JWT_SECRET ?? ""),
});
const checkAlone: { name: string; p50: number; p99: number }[] = [];
for (const [name, presented] of [
  ["API key check alone (cached)", { authorization: undefined, apiKey: creds.apiKey }],
  ["JWT check alone (cached session)", { authorization: `Bearer ${creds.jwt}`, apiKey: undefined }],
] as const) {
  for (let i = 0; i < 300; i++) await verifier.authenticate(presented);
  const times: number[] = [];
  for (let i = 0; i < iterations; i++) {
    const start = performance.now();
    await verifier.authenticate(presented);
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  checkAlone.push({ name, p50: percentile(times, 50), p99: percentile(times, 99) });
}
await runtime.stop();
rmSync(dataDir, { recursive: true, force: true });

// ---- 2. over HTTP ----
const httpDir = mkdtempSync(join(tmpdir(), "vantage-bench-auth-"));
const server = await startServer(join(root, "apps/controller/src/main.ts"), {
  VANTAGE_DATA_DIR: httpDir,
  VANTAGE_ACCESS_LOG: "false",
  VANTAGE_LOG_LEVEL: "warn",
});
const httpCreds = await setUp((path, init) => fetch(`${server.url}${path}`, init));
const httpCases = [
  { name: cases[0]!.name, path: "/v1/nodes", headers: {} },
  { name: cases[1]!.name, path: "/v1/account/profile", headers: { "x-api-key": httpCreds.apiKey } },
  {
    name: cases[2]!.name,
    path: "/v1/account/profile",
    headers: { authorization: `Bearer ${httpCreds.jwt}` },
  },
];
const overHttp = [];
for (const c of httpCases) {
  overHttp.push(
    await load(c.name, `${server.url}${c.path}`, { seconds, connections: 16, headers: c.headers }),
  );
}
await server.stop();
rmSync(httpDir, { recursive: true, force: true });

const base = inProcess[0]!;
process.stdout.write(`\nIn process (app.fetch, sequential, ${iterations} requests each):\n\n`);
printTable(
  ["route", "p50 ms", "p99 ms", "p50 over public route"],
  inProcess.map((r) => [
    r.name,
    r.p50.toFixed(3),
    r.p99.toFixed(3),
    `${r.p50 - base.p50 >= 0 ? "+" : ""}${(r.p50 - base.p50).toFixed(3)} ms`,
  ]),
);
process.stdout.write("\nThe credential check alone (what requireAuth adds to any route):\n\n");
printTable(
  ["check", "p50 ms", "p99 ms"],
  checkAlone.map((r) => [r.name, r.p50.toFixed(4), r.p99.toFixed(4)]),
);
process.stdout.write(`\nOver HTTP on loopback (autocannon, 16 connections, ${seconds} s each):\n\n`);
printTable(
  ["route", "req/s", "p50 ms", "p99 ms", "errors"],
  overHttp.map((r) => [r.name, r.rps, r.p50, r.p99, r.errors]),
);
const keyOverhead = checkAlone[0]!.p50;
process.stdout.write(
  `\nCached API key check: ${keyOverhead.toFixed(4)} ms at p50 (target ≤ 0.3 ms): ${
    keyOverhead <= 0.3 ? "ok" : "OVER TARGET"
  }\n`,
);
process.exit(0);
