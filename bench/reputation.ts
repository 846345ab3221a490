import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type LookupContext,
  openIpData,
  parseDnsblZones,
  ReputationDataHolder,
  reputationLookup,
} from "@vantage/lookups";
import { startFixtureDns } from "@vantage/lookups/testing/dnsbl-server";
import { loadConfig } from "../apps/controller/src/config.js";
import { createLogger } from "../apps/controller/src/logger.js";
import { DEFAULT_IP_CACHE_DIR } from "../apps/controller/src/modules/lookups/index.js";
import { startRuntime } from "../apps/controller/src/runtime.js";
import { registerWithKey } from "./lib/accounts.js";
import { publicAddresses } from "./lib/addresses.js";
import { bestOf, load, printTable, startServer } from "./lib/run.js";

/**
 * `pnpm bench:reputation`:
 * 1. in-process reputation lookups (the shipped datasets and IP data) over 20,000 public addresses: one at
 *    a time (latency p50/p99) and 64 in flight (lookups/s), with DNSBL and rDNS off, then with two DNSBL
 *    zones and rDNS asked of a loopback DNS server in this process (every name NXDOMAIN but a few listed);
 * 2. HTTP `GET /v1/ip/reputation` req/s and latency with autocannon against a controller in its own
 *    process (DNSBL off, its cache off so every call is a lookup), and against a bare Hono hello-world of
 *    the same run; each the best of BENCH_HTTP_ROUNDS (2) loads of 5 s after 1 s of warm-up;
 * 3. the limiter's cost on a keyed route: `GET /v1/info/ip` with an API key through `app.request`, one
 *    request at a time, on two controllers in this process alternately — limits on (the free plan's rules,
 *    figures raised so nothing is refused) and limits off — and the p50 difference. Aim: ≤ 0.1 ms.
 */
const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const iterations = Number(process.env.BENCH_ITERATIONS ?? 5000);
const root = new URL("..", import.meta.url).pathname;

const pct = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
const ms = (v: number) => v.toFixed(3);

// ---- 1. in process ----
const data = await ReputationDataHolder.open();
const ipData = await openIpData({ cacheDir: DEFAULT_IP_CACHE_DIR });
const set = publicAddresses(20_000, 5);
const dns = await startFixtureDns(
  set.slice(0, 200).map((ip) => ({
    name: `${ip.split(".").reverse().join(".")}.bl.test`,
    type: "A" as const,
    data: "127.0.0.2",
  })),
);
const contexts: { name: string; ctx: LookupContext }[] = [
  {
    name: "DNSBL off, rDNS off",
    ctx: { allowPrivate: true, ipData, reputation: { data, rdns: false } },
  },
  {
    name: "2 DNSBL zones + rDNS, loopback DNS",
    ctx: {
      allowPrivate: true,
      ipData,
      dnsServer: `127.0.0.1:${dns.port}`,
      timeoutMs: 3000,
      reputation: {
        data,
        rdns: true,
        dnsbl: { zones: parseDnsblZones("bl.test=spamhaus,proxy.test=dronebl") },
      },
    },
  },
];
const inProcess: (string | number)[][] = [];
for (const { name, ctx } of contexts) {
  const run = (ip: string) => reputationLookup.run({ kind: "ip", ip }, ctx);
  for (const ip of set.slice(0, 500)) await run(ip);
  const n = name.startsWith("DNSBL off") ? set.length : 4000;
  const times: number[] = [];
  for (const ip of set.slice(0, n)) {
    const t0 = performance.now();
    await run(ip);
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  // 64 in flight: the throughput figure.
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: 64 }, async () => {
      while (next < n) await run(set[next++] as string);
    }),
  );
  const rate = Math.round(n / ((performance.now() - t0) / 1000));
  inProcess.push([name, ms(pct(times, 50)), ms(pct(times, 99)), rate.toLocaleString("en")]);
}
await dns.close();
printTable(
  ["in-process reputation lookup", "p50 ms (1 at a time)", "p99 ms", "lookups/s (64 in flight)"],
  inProcess,
);
process.stdout.write("\n");

// ---- 2. over HTTP ----
// A bare Hono hello-world first, in its own process, as the yardstick of this run (issue #31).
// Each figure is the best of BENCH_HTTP_ROUNDS (2) loads, as in bench:lookups (a single load right after the
// controller's start swung the ratio from 0.41 to 0.52 in three runs of one day).
const hello = await startServer(join(root, "bench/servers/hello.ts"));
const baseline = await bestOf(() => load("hono hello-world", `${hello.url}/`, { seconds }));
await hello.stop();
const httpDir = mkdtempSync(join(tmpdir(), "vantage-bench-rep-"));
const server = await startServer(join(root, "apps/controller/src/main.ts"), {
  VANTAGE_DATA_DIR: httpDir,
  VANTAGE_ACCESS_LOG: "false",
  VANTAGE_LOG_LEVEL: "warn",
  VANTAGE_DNSBL_ZONES: "none",
  VANTAGE_REPUTATION_RDNS: "false",
  VANTAGE_LOOKUP_CACHE_ENTRIES: "0",
  VANTAGE_PLAN_LIMITS: JSON.stringify({
    anonymous: { reputation_per_minute: null, reputation_per_day: null },
  }),
});
const http = await bestOf(() =>
  load("controller GET /v1/ip/reputation?q=8.8.8.8", `${server.url}/v1/ip/reputation?q=8.8.8.8`, {
    seconds,
  }),
);
await server.stop();
rmSync(httpDir, { recursive: true, force: true });
printTable(
  ["server / route", "req/s", "p50 ms", "p99 ms", "errors", "req/s vs hello-world"],
  [baseline, http].map((r) => [r.name, r.rps, r.p50, r.p99, r.errors, (r.rps / baseline.rps).toFixed(2)]),
);
process.stdout.write("(aim: /v1/ip/reputation ≥ 0.5 of the hello-world of the same run, issue #31)\n\n");

// ---- 3. the limiter on a keyed route ----
const big = 1_000_000_000;
async function controller(limits: string) {
  const dir = mkdtempSync(join(tmpdir(), "vantage-bench-limit-"));
  const config = loadConfig({
    PORT: "0",
    VANTAGE_DATA_DIR: dir,
    VANTAGE_ACCESS_LOG: "false",
    VANTAGE_LOG_LEVEL: "silent",
    VANTAGE_PLAN_LIMITS: limits,
  });
  const runtime = await startRuntime(config, createLogger("silent"));
  const call = (path: string, init?: RequestInit) => runtime.app.request(path, init);
  const { apiKey } = await registerWithKey(call);
  const headers = { "x-api-key": apiKey };
  return {
    async once(): Promise<number> {
      const t0 = performance.now();
      const res = await call("/v1/info/ip?ip=8.8.8.8", { headers });
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`status ${res.status}`);
      return performance.now() - t0;
    },
    limited: (res: Response) => res.headers.get("ratelimit-limit"),
    call,
    headers,
    async stop() {
      await runtime.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
const on = await controller(JSON.stringify({ free: { lookups_per_minute: big, lookups_per_day: big } }));
const off = await controller(JSON.stringify({ free: { lookups_per_minute: null, lookups_per_day: null } }));
const check = await on.call("/v1/info/ip?ip=8.8.8.8", { headers: on.headers });
if (check.headers.get("ratelimit-limit") === null)
  throw new Error("the limits-on controller sent no RateLimit-Limit");
for (let i = 0; i < 500; i++) {
  await on.once();
  await off.once();
}
const tOn: number[] = [];
const tOff: number[] = [];
for (let i = 0; i < iterations; i++) {
  tOn.push(await on.once());
  tOff.push(await off.once());
}
tOn.sort((a, b) => a - b);
tOff.sort((a, b) => a - b);
await on.stop();
await off.stop();
printTable(
  ["keyed GET /v1/info/ip in process", "p50 ms", "p99 ms"],
  [
    ["limits on (per key per minute + per account per day)", ms(pct(tOn, 50)), ms(pct(tOn, 99))],
    ["limits off", ms(pct(tOff, 50)), ms(pct(tOff, 99))],
    ["limiter cost (p50 on − off)", ms(pct(tOn, 50) - pct(tOff, 50)), ""],
  ],
);
process.exit(0);
