import { readFileSync } from "node:fs";
import { createServer, type IncomingMessage, request, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { startCluster } from "../apps/controller/src/e2e/cluster.js";
import { type SseEvent, SseParser, SseReader } from "../apps/controller/src/http/sse.js";
import { listenerPid } from "./lib/listener-pid.js";
import { printTable, processCpuSeconds } from "./lib/run.js";

/**
 * `pnpm bench:stream`: live probe results over Server-Sent Events. Two agent processes over real NATS,
 * controller processes on PostgreSQL (`e2e/cluster.ts`), http probes of a loopback target served by this
 * process.
 *
 * 1. Latency, node's reply → its `result` event at the client: BENCH_TASKS (default 300) tasks one after
 *    another, each on both agents. The target answers after BENCH_DELAY_MS (default 20) and stamps its
 *    answer `x-replied-at` with this process's clock; the probe reports the target's headers, so the event
 *    tells when its node got the answer it then replied with. Measured: target answered → agent → NATS →
 *    controller → SSE event read here (so an upper bound of "node replied → event"), for
 *    - Form B, `POST /v1/probe/http` with `Accept: text/event-stream`;
 *    - Form A, the same (results reach the stream before their write);
 *    - Form A, `POST` (JSON) on one controller and `GET /v1/probe/tasks/{id}` streamed from another one
 *      (each result heard through LISTEN/NOTIFY once the first has stored it).
 * 2. Idle streams: BENCH_STREAMS (default 5,000) `GET /v1/probe/tasks/{id}` streams held open on
 *    BENCH_SLOW_TASKS (default 10) running Form A tasks whose target holds its answer, heartbeats every 5 s,
 *    for BENCH_HOLD_S (default 12) seconds; the controller's RSS and CPU before and after, then the target
 *    answers every held request and the time until every stream has had its `done` (the fan-out). Once on
 *    the controller running the tasks (followed in memory), once on the other (followed through the
 *    database: one LISTEN and one polling statement for all of them).
 */
const tasks = Number(process.env.BENCH_TASKS ?? 300);
const delayMs = Number(process.env.BENCH_DELAY_MS ?? 20);
const streams = Number(process.env.BENCH_STREAMS ?? 5000);
const slowTasks = Number(process.env.BENCH_SLOW_TASKS ?? 10);
const holdS = Number(process.env.BENCH_HOLD_S ?? 12);
const agents = [
  { id: "sse-fra", country: "DE", region: "eu-central", provider: "hetzner" },
  { id: "sse-nyc", country: "US", region: "us-east", provider: "digitalocean" },
];

const now = () => performance.timeOrigin + performance.now();

// The probe target: `/reply` answers after `delayMs`, `/hold` when `releaseHeld()` is called.
let held: ServerResponse[] = [];
const answer = (res: ServerResponse) => {
  res.writeHead(200, { "content-type": "text/plain", "x-replied-at": now().toFixed(3) });
  res.end("ok");
};
const target = createServer((req: IncomingMessage, res: ServerResponse) => {
  if (req.url?.startsWith("/hold")) held.push(res);
  else setTimeout(() => answer(res), delayMs);
});
target.keepAliveTimeout = 60_000;
await new Promise<void>((r) => target.listen(0, "127.0.0.1", r));
const targetUrl = `http://127.0.0.1:${(target.address() as AddressInfo).port}`;
const releaseHeld = () => {
  for (const res of held) answer(res);
  held = [];
};

const cluster = await startCluster(agents);
const env = { VANTAGE_LOG_LEVEL: "warn", VANTAGE_SSE_HEARTBEAT_MS: "5000" };
const [ctlB, ctlA, ctlA2] = await Promise.all([
  cluster.startController({ ...env, VANTAGE_API_FORM: "b" }),
  cluster.startController({ ...env, VANTAGE_API_FORM: "a" }),
  cluster.startController({ ...env, VANTAGE_API_FORM: "a" }),
]);

const percentile = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? Number.NaN;
};

/** Opens a stream with fetch and reads it to its end; returns each event with its arrival time. */
async function readStream(url: string, init: RequestInit = {}): Promise<{ e: SseEvent; at: number }[]> {
  const res = await fetch(url, { ...init, headers: { ...init.headers, accept: "text/event-stream" } });
  if (res.status !== 200 || !res.body) throw new Error(`${url}: ${res.status} ${await res.text()}`);
  const reader = new SseReader(res.body);
  const out: { e: SseEvent; at: number }[] = [];
  for (let e = await reader.next(); e; e = await reader.next()) out.push({ e, at: now() });
  return out;
}

/** Milliseconds from the target's stamp to each result event's arrival. */
function replyToEvent(events: { e: SseEvent; at: number }[]): number[] {
  return events
    .filter((x) => x.e.event === "result")
    .map((x) => {
      const r = JSON.parse(x.e.data) as { success: boolean; headers?: Record<string, string> };
      const stamp = Number(r.headers?.["x-replied-at"]);
      if (!r.success || !Number.isFinite(stamp)) throw new Error(`probe failed: ${x.e.data}`);
      return x.at - stamp;
    });
}

const probeBody = (form: "a" | "b", path: string, timeoutS = 10) =>
  JSON.stringify(
    form === "a"
      ? { target: `${targetUrl}${path}`, params: { timeout_ms: timeoutS * 1000 } }
      : { url: `${targetUrl}${path}`, timeout: timeoutS },
  );
const json = { "content-type": "application/json" };

const latencyRows: (string | number)[][] = [];
const idleRows: (string | number)[][] = [];
try {
  await Promise.all(
    [ctlB, ctlA, ctlA2].map((c) =>
      cluster.waitForNodes(
        c.url,
        agents.map((a) => a.id),
      ),
    ),
  );

  // 1. Latency.
  const cases: { name: string; run: () => Promise<number[]> }[] = [
    {
      name: "Form B, POST stream (same controller)",
      run: async () =>
        replyToEvent(
          await readStream(`${ctlB.url}/v1/probe/http`, {
            method: "POST",
            headers: json,
            body: probeBody("b", "/reply"),
          }),
        ),
    },
    {
      name: "Form A, POST stream (same controller)",
      run: async () =>
        replyToEvent(
          await readStream(`${ctlA.url}/v1/probe/http`, {
            method: "POST",
            headers: json,
            body: probeBody("a", "/reply"),
          }),
        ),
    },
    {
      name: "Form A, GET stream on another controller (NOTIFY)",
      run: async () => {
        const created = await fetch(`${ctlA.url}/v1/probe/http`, {
          method: "POST",
          headers: json,
          body: probeBody("a", "/reply"),
        });
        const id = ((await created.json()) as { data: { task_id: string } }).data.task_id;
        return replyToEvent(await readStream(`${ctlA2.url}/v1/probe/tasks/${id}`));
      },
    },
  ];
  for (const c of cases) {
    for (let i = 0; i < 20; i++) await c.run(); // warm-up: JIT, connections, prepared statements
    const samples: number[] = [];
    for (let i = 0; i < tasks; i++) samples.push(...(await c.run()));
    latencyRows.push([
      c.name,
      tasks,
      samples.length,
      percentile(samples, 50).toFixed(2),
      percentile(samples, 99).toFixed(2),
      Math.max(...samples).toFixed(2),
    ]);
    process.stderr.write(`${c.name}: measured\n`);
  }

  // 2. Idle streams.
  const rssOf = (pid: number) =>
    Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? Number.NaN) / 1024;
  const cpuMsOf = (pid: number) => processCpuSeconds(pid) * 1000;
  for (const [name, viewer] of [
    ["on the controller running the tasks", ctlA],
    ["on another controller (LISTEN + polling)", ctlA2],
  ] as const) {
    const ids: string[] = [];
    for (let i = 0; i < slowTasks; i++) {
      const res = await fetch(`${ctlA.url}/v1/probe/http`, {
        method: "POST",
        headers: json,
        body: probeBody("a", `/hold?task=${i}`, 30),
      });
      ids.push(((await res.json()) as { data: { task_id: string } }).data.task_id);
    }
    const pid = listenerPid(Number(new URL(viewer.url).port), "main.ts");
    await new Promise((r) => setTimeout(r, 1000));
    const rssBefore = rssOf(pid);
    const url = new URL(viewer.url);
    let started = 0;
    let beats = 0;
    let done = 0;
    const doneAt: number[] = [];
    const resultAt: number[] = [];
    let failures = 0;
    const openAt = now();
    const open = (id: string) =>
      new Promise<void>((resolve) => {
        const req = request(
          {
            host: url.hostname,
            port: url.port,
            path: `/v1/probe/tasks/${id}`,
            agent: false,
            headers: { accept: "text/event-stream" },
          },
          (res) => {
            if (res.statusCode !== 200) failures++;
            const parser = new SseParser();
            res.setEncoding("utf8");
            res.on("data", (chunk: string) => {
              for (const e of parser.push(chunk)) {
                if (e.comment === "keep-alive") beats++;
                else if (e.event === "start") {
                  started++;
                  resolve();
                } else if (e.event === "result") {
                  resultAt.push(now());
                } else if (e.event === "done") {
                  done++;
                  doneAt.push(now());
                }
              }
            });
            res.on("error", () => {});
          },
        );
        req.on("error", () => {
          failures++;
          resolve();
        });
        req.end();
      });
    // A few hundred connections at a time: the listen backlog stays within its limit.
    for (let i = 0; i < streams; i += 250) {
      await Promise.all(
        Array.from({ length: Math.min(250, streams - i) }, (_, j) => open(ids[(i + j) % ids.length]!)),
      );
    }
    const openS = (now() - openAt) / 1000;
    const cpuBefore = cpuMsOf(pid);
    const beatsBefore = beats;
    await new Promise((r) => setTimeout(r, holdS * 1000));
    const rssAfter = rssOf(pid);
    const cpuIdle = cpuMsOf(pid) - cpuBefore;
    const beatsIdle = beats - beatsBefore;
    const released = now();
    releaseHeld();
    const end = Date.now() + 60_000;
    while (done + failures < streams && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
    const results = resultAt.map((t) => t - released);
    const dones = doneAt.map((t) => t - released);
    idleRows.push([
      name,
      started.toLocaleString("en"),
      failures,
      openS.toFixed(1),
      rssBefore.toFixed(0),
      rssAfter.toFixed(0),
      (((rssAfter - rssBefore) * 1024) / Math.max(1, started)).toFixed(1),
      `${((cpuIdle / (holdS * 1000)) * 100).toFixed(1)} %`,
      (beatsIdle / Math.max(1, started)).toFixed(1),
      done.toLocaleString("en"),
      `${percentile(results, 50).toFixed(0)} / ${Math.max(...results).toFixed(0)}`,
      `${percentile(dones, 50).toFixed(0)} / ${Math.max(...dones).toFixed(0)}`,
    ]);
    process.stderr.write(`idle streams ${name}: measured\n`);
    // The sockets close by themselves once the streams have ended.
    await new Promise((r) => setTimeout(r, 1000));
  }
} finally {
  releaseHeld();
  await Promise.all([ctlB.stop(), ctlA.stop(), ctlA2.stop()]);
  await cluster.stop();
  target.closeAllConnections();
  target.close();
}
printTable(
  [
    "node reply → SSE event (target answered → result event read)",
    "tasks",
    "events",
    "p50 ms",
    "p99 ms",
    "max ms",
  ],
  latencyRows,
);
process.stdout.write("\n");
printTable(
  [
    `${streams.toLocaleString("en")} idle GET streams on ${slowTasks} running tasks`,
    "streams open",
    "failed",
    "open s",
    "RSS before MiB",
    "RSS after MiB",
    "KiB/stream",
    `CPU idle (${holdS} s)`,
    "heartbeats/stream",
    "done received",
    "release → result p50 / max ms",
    "release → done p50 / max ms",
  ],
  idleRows,
);
process.exit(0);
