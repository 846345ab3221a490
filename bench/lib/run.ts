import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { freePort, waitForPort } from "@vantage/testing";
import autocannon from "autocannon";

export interface LoadResult {
  name: string;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  /** The server's CPU time per request (µs) over the measured phase, when `opts.cpu` was given. */
  cpuUs?: number;
}

/** Rounds of each HTTP figure in the benches that compare a route with the hello-world (BENCH_HTTP_ROUNDS). */
export const httpRounds = Math.max(1, Number(process.env.BENCH_HTTP_ROUNDS ?? 2));

/** The better of two loads of the same server: the one with more requests/s. */
export function better(a: LoadResult, b: LoadResult): LoadResult {
  return a.rps >= b.rps ? a : b;
}

/**
 * The best of `httpRounds` loads: a single load right after a server's start runs well below a later one
 * (start-up work and compilation still going on), and a ratio of two servers swung with it.
 */
export async function bestOf(once: () => Promise<LoadResult>): Promise<LoadResult> {
  let top = await once();
  for (let round = 1; round < httpRounds; round++) top = better(top, await once());
  return top;
}

/**
 * Runs autocannon against `url` (warm-up first) and returns requests/s and latency percentiles (ms);
 * with `cpu` (a server's `cpuSeconds`), also the server's CPU time per request.
 */
export async function load(
  name: string,
  url: string,
  opts: {
    connections?: number;
    seconds?: number;
    headers?: Record<string, string>;
    cpu?: () => number;
  } = {},
): Promise<LoadResult> {
  const base = { url, connections: opts.connections ?? 32, headers: opts.headers ?? {} };
  await autocannon({ ...base, duration: 1 });
  const cpuBefore = opts.cpu?.();
  const r = await autocannon({ ...base, duration: opts.seconds ?? 5 });
  const cpuAfter = opts.cpu?.();
  return {
    name,
    rps: Math.round(r.requests.average),
    p50: r.latency.p50,
    p99: r.latency.p99,
    errors: r.errors + r.non2xx,
    ...(cpuBefore !== undefined && cpuAfter !== undefined && r.requests.total > 0
      ? { cpuUs: ((cpuAfter - cpuBefore) * 1e6) / r.requests.total }
      : {}),
  };
}

export interface Server {
  port: number;
  url: string;
  /** Stops the process (SIGSTOP) until `resume`, so it takes no CPU while another server is measured. */
  pause(): void;
  resume(): void;
  /** CPU seconds (user + system) the process has used so far, from /proc. */
  cpuSeconds(): number;
  stop(): Promise<void>;
}

/**
 * Starts an entry point as its own process on a free port: TypeScript through tsx, built JavaScript
 * (`.mjs`) with plain node. `nodeArgs` go before the entry (e.g. `--cpu-prof`).
 */
export async function startServer(
  entry: string,
  env: Record<string, string> = {},
  nodeArgs: string[] = [],
): Promise<Server> {
  const port = await freePort();
  const loader = entry.endsWith(".ts") ? ["--import", "tsx"] : [];
  const child: ChildProcess = spawn(process.execPath, [...nodeArgs, ...loader, entry], {
    env: { ...process.env, PORT: String(port), HOST: "127.0.0.1", ...env },
    stdio: ["ignore", "ignore", "inherit"],
  });
  // A server that exits before it listens (a wrong entry path, a missing build) fails at once, with its code.
  let onExit: ((code: number | null, signal: NodeJS.Signals | null) => void) | undefined;
  const exitedEarly = new Promise<never>((_, reject) => {
    onExit = (code, signal) =>
      reject(new Error(`${entry} exited (${signal ?? `code ${code}`}) before listening`));
    child.once("exit", onExit);
  });
  try {
    await Promise.race([waitForPort(port, "127.0.0.1", 60_000), exitedEarly]);
  } catch (err) {
    if (child.exitCode === null) child.kill("SIGKILL");
    throw err;
  } finally {
    if (onExit) child.off("exit", onExit);
  }
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    cpuSeconds: () => processCpuSeconds(child.pid ?? 0),
    pause: () => {
      if (child.exitCode === null) child.kill("SIGSTOP");
    },
    resume: () => {
      if (child.exitCode === null) child.kill("SIGCONT");
    },
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once("exit", r));
      child.kill("SIGTERM");
      await exited;
    },
  };
}

/** Prints rows as a Markdown table. */
export function printTable(headers: string[], rows: (string | number)[][]): void {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => String(r[i] ?? "").length)));
  const line = (cells: (string | number)[]) =>
    `| ${cells.map((c, i) => String(c).padEnd(widths[i]!)).join(" | ")} |`;
  process.stdout.write(`${line(headers)}\n| ${widths.map((w) => "-".repeat(w)).join(" | ")} |\n`);
  for (const r of rows) process.stdout.write(`${line(r)}\n`);
}

/** utime + stime of a process (Linux /proc), in seconds; the kernel counts in clock ticks of 10 ms. */
export function processCpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  // Fields after the command name (which may hold spaces) start after the last ")".
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100;
}
