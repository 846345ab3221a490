import { type ChildProcess, spawn } from "node:child_process";
import { freePort, waitForPort } from "@vantage/testing";
import autocannon from "autocannon";

export interface LoadResult {
  name: string;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
}

/** Runs autocannon against `url` (warm-up first) and returns requests/s and latency percentiles (ms). */
export async function load(
  name: string,
  url: string,
  opts: { connections?: number; seconds?: number; headers?: Record<string, string> } = {},
): Promise<LoadResult> {
  const base = { url, connections: opts.connections ?? 32, headers: opts.headers ?? {} };
  await autocannon({ ...base, duration: 1 });
  const r = await autocannon({ ...base, duration: opts.seconds ?? 5 });
  return {
    name,
    rps: Math.round(r.requests.average),
    p50: r.latency.p50,
    p99: r.latency.p99,
    errors: r.errors + r.non2xx,
  };
}

export interface Server {
  port: number;
  url: string;
  stop(): Promise<void>;
}

/** Starts a TypeScript entry point as its own process on a free port. */
export async function startServer(entry: string, env: Record<string, string> = {}): Promise<Server> {
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, ["--import", "tsx", entry], {
    env: { ...process.env, PORT: String(port), HOST: "127.0.0.1", ...env },
    stdio: ["ignore", "ignore", "inherit"],
  });
  await waitForPort(port, "127.0.0.1", 60_000);
  return {
    port,
    url: `http://127.0.0.1:${port}`,
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
