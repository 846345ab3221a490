import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createAgentCredentials, createControllerCredentials } from "@vantage/nats-auth";
import { startNatsServer } from "@vantage/testing";
import { heartbeatSchema, jobReplySchema, PROTOCOL_VERSION } from "../packages/protocol/src/index.js";
import { connectNats, natsControllerTransport } from "../packages/transport/src/nats.js";
import { printTable } from "./lib/run.js";

/**
 * `pnpm bench:agent`: the footprint of one agent process, the built bundle (apps/agent/dist) as the release
 * runs it: the ExecStart line of deploy/agent-release/vantage-agent.service, Node's options included
 * (`node <options> --require threadpool.cjs vantage-agent.mjs`), on a real nats-server with nkey users.
 * - idle RSS 10 s after its first heartbeat and once settled (BENCH_SETTLE_MS after it, default 45 s); the
 *   same for the agent started from its TypeScript sources through tsx, for comparison (both at once);
 * - BENCH_JOBS (default 500) jobs sent at once over the real job subject, as the controller sends them,
 *   with VANTAGE_AGENT_CONCURRENCY at that number: TCP connects to a loopback listener, and pings of
 *   127.0.0.1 (raw ICMP: root only). Errors, duration, and peak RSS (the kernel's VmHWM, reset per round);
 *   then the idle RSS again, 10 s after the rounds and once settled (BENCH_SETTLE_MS after them).
 */
const settleMs = Number(process.env.BENCH_SETTLE_MS ?? 45_000);
const jobs = Number(process.env.BENCH_JOBS ?? 500);
const root = fileURLToPath(new URL("..", import.meta.url));
const isRoot = process.getuid?.() === 0;
/** BENCH_NODE runs the bundle on another Node (e.g. 24), built by that Node into a temporary folder. */
const node = process.env.BENCH_NODE ?? process.execPath;
const otherNode = node !== process.execPath;
const nodeVersion = execFileSync(node, ["-p", "process.versions.node"]).toString().trim();
const dir = mkdtempSync(join(tmpdir(), "vantage-bench-agent-"));
const dist = otherNode ? join(dir, "dist") : join(root, "apps/agent/dist");
const nodeOptions = releaseNodeOptions();
if (otherNode) {
  // A raw-socket build for that Node's ABI (cached per ABI), then this Node's back in place for the tree.
  for (const n of [node, process.execPath]) {
    execFileSync(n, [join(root, "scripts/native-addons.mjs")], { stdio: "inherit" });
  }
}
execFileSync(node, [join(root, "apps/agent/build.mjs"), "--if-stale", "--outdir", dist], {
  stdio: "inherit",
});

const creds = { bundle: createAgentCredentials("bench-bundle"), tsx: createAgentCredentials("bench-tsx") };
const controllerCreds = createControllerCredentials();
const nats = await startNatsServer({ users: [creds.bundle.user, creds.tsx.user, controllerCreds.user] });
const target = createServer({ pauseOnConnect: true }, (s) => s.destroy());
await new Promise<void>((r) => target.listen({ port: 0, host: "127.0.0.1", backlog: 4096 }, r));
const targetPort = (target.address() as { port: number }).port;

const controllerSeed = join(dir, "controller.nk");
writeFileSync(controllerSeed, `${controllerCreds.seed}\n`, { mode: 0o600 });
const nc = await connectNats({ servers: nats.url, name: "bench-controller", nkeySeedFile: controllerSeed });
const controller = natsControllerTransport(nc, false);
const seen = new Map<string, number>();
controller.subscribeHeartbeats((nodeId, message) => {
  if (heartbeatSchema.safeParse(message).success) seen.set(nodeId, (seen.get(nodeId) ?? 0) + 1);
});

interface Agent {
  child: ChildProcess;
  output: () => string;
  stop(): Promise<number | null>;
}

function startAgent(nodeId: "bench-bundle" | "bench-tsx", concurrency: number): Agent {
  const seedFile = join(dir, `${nodeId}.nk`);
  writeFileSync(seedFile, `${creds[nodeId === "bench-bundle" ? "bundle" : "tsx"].seed}\n`, { mode: 0o600 });
  const args =
    nodeId === "bench-bundle"
      ? [...nodeOptions, "--require", join(dist, "threadpool.cjs"), join(dist, "vantage-agent.mjs")]
      : [
          "--require",
          join(root, "apps/agent/src/threadpool.cjs"),
          "--import",
          "tsx",
          "apps/agent/src/main.ts",
        ];
  const child = spawn(nodeId === "bench-bundle" ? node : process.execPath, args, {
    cwd: root,
    env: {
      PATH: process.env.PATH ?? "",
      VANTAGE_NODE_ID: nodeId,
      VANTAGE_NODE_COUNTRY: "DE",
      VANTAGE_NODE_REGION: "eu-central",
      VANTAGE_NODE_PROVIDER: "bench",
      NATS_URL: nats.url,
      NATS_NKEY_SEED_FILE: seedFile,
      VANTAGE_ALLOW_PRIVATE_TARGETS: "true",
      VANTAGE_AGENT_CONCURRENCY: String(concurrency),
      VANTAGE_LOG_LEVEL: "info",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout?.on("data", (d: Buffer) => (out += d.toString()));
  child.stderr?.on("data", (d: Buffer) => (out += d.toString()));
  return {
    child,
    output: () => out,
    async stop() {
      if (child.exitCode !== null) return child.exitCode;
      const exited = new Promise<number | null>((r) => child.once("exit", (c) => r(c)));
      child.kill("SIGTERM");
      return await exited;
    },
  };
}

/**
 * Node's options on the release unit's ExecStart line, which must otherwise start the bundle as this bench
 * does: `<node> [options] --require <dir>/threadpool.cjs <dir>/vantage-agent.mjs`.
 */
function releaseNodeOptions(): string[] {
  const unit = readFileSync(join(root, "deploy/agent-release/vantage-agent.service"), "utf8");
  const words = /^ExecStart=(.+)$/m.exec(unit)?.[1]?.trim().split(/\s+/) ?? [];
  const dir = "/opt/vantage-agent/current";
  const tail = ["--require", `${dir}/threadpool.cjs`, `${dir}/vantage-agent.mjs`];
  if (words.length < 4 || words.slice(-3).join(" ") !== tail.join(" ")) {
    throw new Error(
      `the release unit's ExecStart is not \`<node> [options] ${tail.join(" ")}\`: update bench/agent.ts`,
    );
  }
  return words.slice(1, -3);
}

/**
 * VmRSS and VmHWM (peak) of a process, MiB, and the two parts of its RSS: anonymous (the process's own
 * memory: heaps, stacks) and file-backed (pages of mapped files, mostly Node's own binary: shared with every
 * other process running it, and dropped by the kernel under memory pressure, since they are clean).
 */
function memory(pid: number): { rss: number; hwm: number; anon: number; file: number } {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? NaN);
  return {
    rss: kb("VmRSS") / 1024,
    hwm: kb("VmHWM") / 1024,
    anon: kb("RssAnon") / 1024,
    file: kb("RssFile") / 1024,
  };
}

const split = (m: { anon: number; file: number }) => `${fmt(m.anon)} / ${fmt(m.file)}`;

/** Resets the kernel's peak-RSS mark of a process (`echo 5 > clear_refs`; Linux, own processes). */
function resetPeak(pid: number): void {
  writeFileSync(`/proc/${pid}/clear_refs`, "5");
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function untilHeartbeat(nodeId: string, agent: Agent): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!seen.get(nodeId)) {
    if (agent.child.exitCode !== null || Date.now() > deadline)
      throw new Error(`${nodeId} did not heartbeat; its output:\n${agent.output()}`);
    await sleep(50);
  }
}

/** Median RSS of 5 samples over 2 s. */
async function rssNow(pid: number): Promise<number> {
  const samples: number[] = [];
  for (let i = 0; i < 5; i++) {
    samples.push(memory(pid).rss);
    await sleep(500);
  }
  return samples.sort((a, b) => a - b)[2]!;
}

/**
 * Idle RSS 10 s after the first heartbeat, and once settled: V8's memory reducer shrinks the heap grown
 * during start-up about 30 s after the allocations stop (BENCH_SETTLE_MS from the first heartbeat).
 */
/**
 * What Node itself takes, for reference, with the unit's options: an empty program, and one that only loads
 * the http client, as the bundle does (require) and by an ES import (which on Node 24 also loads undici).
 */
async function reference(code: string) {
  const args = [...nodeOptions, "--input-type=module", "-e", `${code}\nsetInterval(() => {}, 1000);`];
  const child = spawn(node, args, {
    stdio: "ignore",
  });
  await sleep(10_000);
  const rss = await rssNow(child.pid!);
  const parts = memory(child.pid!);
  const exited = new Promise((r) => child.once("exit", r));
  child.kill("SIGTERM");
  await exited;
  return { rss, parts };
}

async function idle(nodeId: "bench-bundle" | "bench-tsx") {
  const agent = startAgent(nodeId, 64);
  const started = performance.now();
  await untilHeartbeat(nodeId, agent);
  const joined = performance.now();
  const { early, settled, parts } = await idleReadings(agent.child.pid!, joined);
  await agent.stop();
  return { joinedMs: joined - started, early, settled, parts };
}

/** RSS 10 s after `since` and once settled (`settleMs` after it), with what the settled RSS is made of. */
async function idleReadings(pid: number, since: number) {
  await sleep(10_000);
  const early = await rssNow(pid);
  await sleep(Math.max(0, settleMs - (performance.now() - since)));
  return { early, settled: await rssNow(pid), parts: memory(pid) };
}

const fmt = (n: number, digits = 1) => n.toFixed(digits);

async function round(agent: Agent, name: string, spec: () => object, budgetMs: number) {
  const pid = agent.child.pid!;
  resetPeak(pid);
  let sampledPeak = memory(pid).rss;
  const sampler = setInterval(() => {
    sampledPeak = Math.max(sampledPeak, memory(pid).rss);
  }, 20);
  const outcomes = new Map<string, number>();
  const count = (key: string) => outcomes.set(key, (outcomes.get(key) ?? 0) + 1);
  const start = performance.now();
  await Promise.all(
    Array.from({ length: jobs }, async (_, i) => {
      const job = { v: PROTOCOL_VERSION, job_id: `${name}-${i}`, budget_ms: budgetMs, spec: spec() };
      try {
        const reply = jobReplySchema.parse(await controller.request("bench-bundle", job, budgetMs + 1000));
        if (reply.status === "refused") count(`refused: ${reply.error.code}`);
        else if (!reply.outcome.success) count(`failed: ${reply.outcome.error?.code ?? "?"}`);
        else count("ok");
      } catch (err) {
        count(`transport: ${(err as { code?: string }).code ?? String(err)}`);
      }
    }),
  );
  const durationMs = performance.now() - start;
  clearInterval(sampler);
  const peak = Math.max(sampledPeak, memory(pid).hwm);
  const errors = [...outcomes].filter(([k]) => k !== "ok");
  return {
    name,
    ok: outcomes.get("ok") ?? 0,
    errors: errors.length === 0 ? "0" : errors.map(([k, v]) => `${v} ${k}`).join(", "),
    durationMs,
    peak,
  };
}

try {
  // The sources run on this process's Node (tsx, and raw-socket as node_modules has it built).
  const [bundleIdle, tsxIdle, bare, withHttp, withHttpImport] = await Promise.all([
    idle("bench-bundle"),
    otherNode ? Promise.resolve(undefined) : idle("bench-tsx"),
    reference(""),
    reference('process.getBuiltinModule("node:http"); process.getBuiltinModule("node:https");'),
    reference('import "node:http"; import "node:https";'),
  ]);

  const agent = startAgent("bench-bundle", jobs);
  await untilHeartbeat("bench-bundle", agent);
  await sleep(2000);
  const uvSize = /"uv_threadpool_size":(\d+)/.exec(agent.output())?.[1] ?? "?";
  const before = memory(agent.child.pid!).rss;
  const rounds = [
    await round(
      agent,
      "tcp",
      () => ({ type: "tcp", params: { host: "127.0.0.1", port: targetPort } }),
      10_000,
    ),
  ];
  if (isRoot) {
    rounds.push(
      await round(
        agent,
        "ping",
        () => ({ type: "ping", params: { host: "127.0.0.1", count: 3, interval_ms: 100, timeout_ms: 2000 } }),
        10_000,
      ),
    );
  }
  const after = memory(agent.child.pid!).rss;
  // Idle again: what an agent that has served jobs holds between them.
  const {
    early: afterEarly,
    settled: afterSettled,
    parts: afterParts,
  } = await idleReadings(agent.child.pid!, performance.now());
  const code = await agent.stop();

  process.stdout.write(
    `\nAgent footprint (Node ${nodeVersion}, ${jobs} jobs at once, VANTAGE_AGENT_CONCURRENCY=${jobs}, ` +
      `UV_THREADPOOL_SIZE=${uvSize}; Node options from the release unit: ${nodeOptions.join(" ") || "none"})\n\n`,
  );
  printTable(
    [
      "agent",
      "first heartbeat after",
      "idle RSS MiB, 10 s",
      `idle RSS MiB, settled (${settleMs / 1000} s)`,
      "of which anonymous / file-backed MiB",
    ],
    [
      [
        "bundle (vantage-agent.mjs)",
        `${fmt(bundleIdle.joinedMs, 0)} ms`,
        fmt(bundleIdle.early),
        fmt(bundleIdle.settled),
        split(bundleIdle.parts),
      ],
      ...(tsxIdle
        ? [
            [
              "sources (tsx)",
              `${fmt(tsxIdle.joinedMs, 0)} ms`,
              fmt(tsxIdle.early),
              fmt(tsxIdle.settled),
              split(tsxIdle.parts),
            ],
          ]
        : []),
      ["reference: an empty Node program", "-", fmt(bare.rss), "-", split(bare.parts)],
      [
        "reference: Node with node:http, node:https required",
        "-",
        fmt(withHttp.rss),
        "-",
        split(withHttp.parts),
      ],
      ["reference: the same by ES import", "-", fmt(withHttpImport.rss), "-", split(withHttpImport.parts)],
    ],
  );
  process.stdout.write("\n");
  printTable(
    ["round (bundle)", "jobs ok", "errors", "duration ms", "peak RSS MiB"],
    rounds.map((r) => [
      `${jobs} × ${r.name}`,
      `${r.ok}/${jobs}`,
      r.errors,
      fmt(r.durationMs, 0),
      fmt(r.peak),
    ]),
  );
  process.stdout.write(
    `\nRSS before the rounds ${fmt(before)} MiB, right after ${fmt(after)} MiB, idle after them ` +
      `${fmt(afterEarly)} MiB (10 s), ${fmt(afterSettled)} MiB (settled, ${settleMs / 1000} s; anonymous / ` +
      `file-backed ${split(afterParts)}); exit status on SIGTERM: ${code}` +
      `${isRoot ? "" : "; ping skipped: not root (raw ICMP sockets)"}\n`,
  );
} finally {
  await controller.close();
  await nc.close();
  target.close();
  await nats.stop();
  rmSync(dir, { recursive: true, force: true });
}
