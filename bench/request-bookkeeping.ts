import { HttpMetrics } from "../apps/controller/src/http/metrics.js";
import { accessLog, createLogger, type FileSink } from "../apps/controller/src/logger.js";
import { printTable } from "./lib/run.js";

/**
 * `pnpm bench:bookkeeping`: what the controller's per-request bookkeeping costs on its own, in nanoseconds
 * per call: the access log line (built, encoded into its batch buffer and handed on 64 KiB at a time, to a
 * sink that drops it, so the file write is left out) and the request metrics (one observation of a route's
 * series). BENCH_CALLS (2,000,000) calls after 200,000 of warm-up, BENCH_ROUNDS (3) rounds; the median.
 * `pnpm bench:http` measures the same work inside whole requests.
 */
const calls = Number(process.env.BENCH_CALLS ?? 2_000_000);
const rounds = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 3));
let dropped = 0;
const sink: FileSink = {
  write: (chunk) => {
    dropped += chunk.length;
    return true;
  },
  flush: (cb) => cb?.(),
  flushSync: () => {},
};
const log = createLogger("info", "vantage-controller", sink);
const writeAccess = accessLog(log);
const metrics = new HttpMetrics(false);
const series = metrics.route("GET", "/healthz");

const cases: [string, (i: number) => void][] = [
  ["access log line", (i) => writeAccess("req_abcdefgh000123", "GET", "/healthz", 200, (i % 97) / 13)],
  [
    "access log line, path to escape",
    (i) => writeAccess("req_abcdefgh000123", "GET", '/a"b', 404, (i % 97) / 13),
  ],
  ["metrics: a route's series", (i) => series.observe(200, (i % 50) / 10_000)],
  ["metrics: by method and route", (i) => metrics.observe("GET", "/healthz", 200, (i % 50) / 10_000)],
];
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
const results = cases.map(([name, fn]) => {
  const each: number[] = [];
  for (let r = 0; r < rounds; r++) {
    for (let i = 0; i < 200_000; i++) fn(i);
    const start = process.hrtime.bigint();
    for (let i = 0; i < calls; i++) fn(i);
    each.push(Number(process.hrtime.bigint() - start) / calls);
  }
  return [name, median(each).toFixed(0), each.map((n) => n.toFixed(0)).join(" · ")];
});
console.log(
  `\n${calls} calls per round, ${rounds} round(s); ${(dropped / 2 ** 20).toFixed(0)} MiB of log lines made`,
);
printTable(["work", "ns per call (median)", "each round"], results);
