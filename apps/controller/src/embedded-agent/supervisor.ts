import { type ChildProcess, fork } from "node:child_process";
import { createRequire } from "node:module";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { AgentSettings } from "@vantage/agent";
import {
  type FromAgentChild,
  type InProcessBus,
  type ToAgentChild,
  TransportError,
} from "@vantage/transport";
import type { Logger } from "pino";
import type { Registry } from "prom-client";
import { counterOn } from "../http/metrics.js";
import type { ChildArgs } from "./child-args.js";

/**
 * The embedded mode's local agent in a supervised child process. The controller keeps its in-process bus;
 * this supervisor serves the local node's jobs on it and forwards each over IPC to the child, which runs the
 * agent (child.ts) and sends its heartbeats back. When the child dies, the API stays up: its jobs in flight
 * are answered at once (`agent_crashed` for those its crash notice listed or when a fatal signal ended it,
 * else `agent_exited`; the controller answers both `node_error`), the exit is logged and counted
 * (`vantage_embedded_agent_exits_total`), and a new child starts after a backoff.
 */

export interface EmbeddedAgentOptions {
  bus: InProcessBus;
  settings: AgentSettings;
  log: Logger;
  /** Where the exits counter is registered (the controller's /metrics registry). */
  registry: Registry;
  /** Restart delays, in order; the last repeats. A child that ran `stableAfterMs` starts the list again. */
  backoffMs?: readonly number[];
  stableAfterMs?: number;
  /** How long a new child may take to send its first heartbeat (start-up fails, or a restart is retried). */
  readyTimeoutMs?: number;
  /** How long a stopping child may drain before it is killed. */
  stopGraceMs?: number;
  /** Tests only: see ChildArgs.probeModule. */
  probeModule?: string | undefined;
  /** See ChildArgs.signingKeyFile. */
  signingKeyFile?: string | undefined;
}

export interface EmbeddedAgent {
  /** The child's pid, while one runs. */
  pid(): number | undefined;
  /** Children started after the first. */
  restarts(): number;
  /** Resolves once a child (a new one after a restart) has sent its first heartbeat. */
  ready(): Promise<void>;
  stop(): Promise<void>;
}

const DEFAULT_BACKOFF_MS = [100, 500, 1000, 2000, 5000, 10_000, 30_000];
/** Signals that end a process for what it did itself (a native addon's fault, an abort): the jobs are suspects. */
const FATAL_SIGNALS = new Set(["SIGSEGV", "SIGBUS", "SIGILL", "SIGFPE", "SIGABRT", "SIGSYS"]);

/**
 * The child's entry point: the built file beside the bundle, or, from the TypeScript sources, child.ts under
 * tsx. One exception from the sources: in the test suite, whose global set-up built the bundles from the
 * sources under test and says so (`VANTAGE_TEST_BUILT=1`, packages/testing), the built child as deployed.
 * Through tsx a start compiled the agent's modules again (about 3 s of CPU against 1 s); a test probe module
 * (`probeModule`, TypeScript) still needs tsx.
 */
function childEntry(probeModule: string | undefined): { file: string; execArgv: string[] } {
  const here = import.meta.url;
  if (here.endsWith(".ts")) {
    if (process.env.VANTAGE_TEST_BUILT === "1" && !probeModule)
      return { file: fileURLToPath(new URL("../../dist/embedded-agent.mjs", here)), execArgv: [] };
    const tsx = pathToFileURL(createRequire(here).resolve("tsx")).href;
    return { file: fileURLToPath(new URL("child.ts", here)), execArgv: ["--import", tsx] };
  }
  // The bundle (build.mjs keeps this module's import.meta.url the bundle's: see its `bundleRelative`).
  return { file: fileURLToPath(new URL("./embedded-agent.mjs", import.meta.url)), execArgv: [] };
}

interface Pending {
  jobId: string | undefined;
  resolve: (v: unknown) => void;
  reject: (e: unknown) => void;
  /** Passes the job's progress on to its requester on the bus. */
  progress: ((message: unknown) => void) | undefined;
}

export async function startEmbeddedAgent(opts: EmbeddedAgentOptions): Promise<EmbeddedAgent> {
  const { bus, settings, log } = opts;
  const nodeId = settings.VANTAGE_NODE_ID;
  const backoff = opts.backoffMs ?? DEFAULT_BACKOFF_MS;
  const stableAfterMs = opts.stableAfterMs ?? 60_000;
  const readyTimeoutMs = opts.readyTimeoutMs ?? 30_000;
  const stopGraceMs = opts.stopGraceMs ?? 10_000;
  const exits = counterOn(
    opts.registry,
    "vantage_embedded_agent_exits_total",
    "Exits of the embedded agent's child process outside shutdown, by reason (crashed, signal, exit code)",
    ["reason"],
  );
  const entry = childEntry(opts.probeModule);
  const link = bus.agent();

  let child: ChildProcess | undefined;
  let childReady = false;
  let startedAt = 0;
  let attempt = 0;
  let restarts = 0;
  let stopping = false;
  let restartTimer: NodeJS.Timeout | undefined;
  let seq = 0;
  const pending = new Map<number, Pending>();
  /** Jobs the current child's crash notice listed. */
  let crashed = new Set<string>();
  let readyWaiters: { resolve: () => void; reject: (e: Error) => void }[] = [];

  const send = (c: ChildProcess, m: ToAgentChild) => {
    if (c.connected) c.send(m);
  };

  const stopServing = link.serveJobs(nodeId, (message, info) => {
    const c = child;
    if (!c || !childReady || !c.connected) {
      if (!info.replyExpected) return Promise.resolve(undefined);
      // As NATS says of an agent that is gone: the controller answers node_offline at once.
      return Promise.reject(new TransportError("no_responders", `node ${nodeId}'s agent is restarting`));
    }
    const id = ++seq;
    if (!info.replyExpected) {
      send(c, { t: "job", id, reply: false, message });
      return Promise.resolve(undefined);
    }
    return new Promise((resolve, reject) => {
      const jobId = (message as { job_id?: unknown } | null)?.job_id;
      pending.set(id, {
        jobId: typeof jobId === "string" ? jobId : undefined,
        resolve,
        reject,
        progress: info.progress,
      });
      send(c, { t: "job", id, reply: true, message });
    });
  });

  const settleReady = (err?: Error) => {
    const waiters = readyWaiters;
    readyWaiters = [];
    for (const w of waiters) err ? w.reject(err) : w.resolve();
  };

  const onMessage = (raw: unknown) => {
    const m = raw as FromAgentChild;
    if (typeof m !== "object" || m === null) return;
    if (m.t === "reply") {
      const p = pending.get(m.id);
      if (!p) return;
      pending.delete(m.id);
      if (m.ok) p.resolve(m.value);
      else p.reject(new Error(m.error));
    } else if (m.t === "progress") {
      pending.get(m.id)?.progress?.(m.message);
    } else if (m.t === "hb") {
      const listed = (m.message as { crashed_jobs?: unknown } | null)?.crashed_jobs;
      if (Array.isArray(listed)) for (const id of listed) if (typeof id === "string") crashed.add(id);
      // The bus answers a crash notice's jobs at once (its PendingJobs), and presence hears the heartbeat.
      link.publishHeartbeat(nodeId, m.message);
      if (!childReady && !Array.isArray(listed)) {
        childReady = true;
        settleReady();
      }
    }
  };

  const spawnChild = () => {
    const args: ChildArgs = {
      settings,
      logLevel: log.level,
      signingKeyFile: opts.signingKeyFile,
      ...(opts.probeModule ? { probeModule: opts.probeModule } : {}),
    };
    const c = fork(entry.file, [JSON.stringify(args)], {
      execArgv: entry.execArgv,
      // libuv's pool runs every name lookup: one thread per job that may wait in one (as threadpool.cjs sizes
      // the agent's), unless the operator set it.
      env: {
        ...process.env,
        UV_THREADPOOL_SIZE:
          process.env.UV_THREADPOOL_SIZE ??
          String(Math.min(128, Math.max(8, settings.VANTAGE_AGENT_CONCURRENCY + 4))),
      },
      stdio: ["ignore", "inherit", "inherit", "ipc"],
      serialization: "json",
    });
    child = c;
    childReady = false;
    crashed = new Set();
    startedAt = Date.now();
    c.on("message", onMessage);
    c.on("error", (err) => log.error({ err }, "embedded agent process: error"));
    c.once("exit", (code, signal) => onExit(c, code, signal));
    log.debug({ child_pid: c.pid }, "embedded agent process started");
  };

  const onExit = (c: ChildProcess, code: number | null, signal: NodeJS.Signals | null) => {
    if (child !== c) return;
    child = undefined;
    childReady = false;
    const wasCrash = crashed.size > 0 || (signal !== null && FATAL_SIGNALS.has(signal));
    const inflight = [...pending.values()];
    pending.clear();
    const why = signal ? `signal ${signal}` : `exit code ${code}`;
    for (const p of inflight) {
      const suspect = wasCrash && (signal !== null || (p.jobId !== undefined && crashed.has(p.jobId)));
      p.reject(
        suspect
          ? new TransportError(
              "agent_crashed",
              `node ${nodeId}'s agent process crashed (${why}) while running the job`,
            )
          : new TransportError(
              "agent_exited",
              `node ${nodeId}'s agent process exited (${why}) while running the job`,
            ),
      );
    }
    if (stopping) {
      log.info({ child_pid: c.pid, code, signal }, "embedded agent process stopped");
      return;
    }
    const reason = crashed.size > 0 ? "crashed" : signal ? signal : `exit_${code}`;
    exits.inc({ reason });
    const ranMs = Date.now() - startedAt;
    if (ranMs >= stableAfterMs) attempt = 0;
    const delay = backoff[Math.min(attempt, backoff.length - 1)] ?? 1000;
    attempt++;
    log.error(
      {
        child_pid: c.pid,
        exit_code: code,
        signal,
        reason,
        in_flight: inflight.map((p) => p.jobId),
        crashed_jobs: [...crashed],
        ran_ms: ranMs,
        restart_in_ms: delay,
      },
      `embedded agent process exited (${why}): the API stays up, its ${inflight.length} job(s) in flight ` +
        `answered node_error; restarting in ${delay} ms`,
    );
    restartTimer = setTimeout(() => {
      restartTimer = undefined;
      if (stopping) return;
      restarts++;
      spawnChild();
      const started = child;
      // A child that never says it is ready is killed, which restarts it again (with the next delay).
      const timer = setTimeout(() => {
        if (child === started && !childReady) {
          log.error({ child_pid: started?.pid }, "embedded agent process did not start in time: killing it");
          started?.kill("SIGKILL");
        }
      }, readyTimeoutMs);
      timer.unref();
    }, delay);
  };

  const ready = () =>
    childReady
      ? Promise.resolve()
      : new Promise<void>((resolve, reject) => readyWaiters.push({ resolve, reject }));

  spawnChild();
  const first = child;
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      ready(),
      new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`the embedded agent did not start within ${readyTimeoutMs} ms`)),
          readyTimeoutMs,
        );
      }),
      new Promise<never>((_, reject) =>
        first?.once("exit", (code, signal) =>
          reject(new Error(`the embedded agent exited at start (${signal ?? `exit code ${code}`})`)),
        ),
      ),
    ]);
  } catch (err) {
    stopping = true;
    first?.kill("SIGKILL");
    await stopServing();
    throw err;
  } finally {
    clearTimeout(timer);
  }
  log.info(
    { child_pid: first?.pid },
    `embedded mode: local agent "${nodeId}" serving probes in a child process`,
  );

  let stopped: Promise<void> | undefined;
  const stop = async () => {
    stopping = true;
    clearTimeout(restartTimer);
    settleReady(new Error("the embedded agent is stopping"));
    const c = child;
    if (c && c.exitCode === null && c.signalCode === null) {
      const exited = new Promise<void>((r) => c.once("exit", () => r()));
      send(c, { t: "stop" });
      let kill: NodeJS.Timeout | undefined;
      await Promise.race([
        exited,
        new Promise<void>((r) => {
          kill = setTimeout(r, stopGraceMs);
        }),
      ]);
      clearTimeout(kill);
      if (c.exitCode === null && c.signalCode === null) {
        log.warn({ child_pid: c.pid }, "embedded agent process did not stop in time: killing it");
        c.kill("SIGKILL");
        await exited;
      }
    }
    await stopServing();
  };

  return {
    pid: () => child?.pid,
    restarts: () => restarts,
    ready,
    stop: () => {
      stopped ??= stop();
      return stopped;
    },
  };
}
