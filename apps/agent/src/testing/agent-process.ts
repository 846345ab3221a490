import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { PROTOCOL_VERSION } from "@vantage/protocol";

/** What the agent's NATS tests share: the agent process, its environment, its log and job messages. */

export const mainPath = fileURLToPath(new URL("../main.ts", import.meta.url));
export const threadpoolPreload = fileURLToPath(new URL("../threadpool.cjs", import.meta.url));

export async function until<T>(what: string, get: () => T | undefined, timeoutMs = 5000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = get();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** The environment of the test agent process `proc-1` on the NATS server at `natsUrl`. */
export function agentEnv(natsUrl: string, seedFile: string): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH ?? "",
    HOME: process.env.HOME ?? "/root",
    VANTAGE_NODE_ID: "proc-1",
    VANTAGE_NODE_NAME: "Process 1",
    VANTAGE_NODE_COUNTRY: "nl",
    VANTAGE_NODE_REGION: "eu-west",
    VANTAGE_NODE_PROVIDER: "test",
    NATS_URL: natsUrl,
    NATS_NKEY_SEED_FILE: seedFile,
    VANTAGE_HEARTBEAT_MS: "500",
    VANTAGE_ALLOW_PRIVATE_TARGETS: "true",
    VANTAGE_LOG_LEVEL: "info",
  };
}

/**
 * An agent process started from its sources without the preload, run until it exits: its exit code and log.
 * The sources, not the bundle: only there is the pool left at libuv's 4 on every Node (the bundle sizes it
 * itself where Node reads the entry synchronously, Node 24: release.test.ts checks that).
 */
export async function runUntilExit(env: NodeJS.ProcessEnv): Promise<{ code: number | null; log: string }> {
  const agent = spawn(process.execPath, ["--import", "tsx", mainPath], {
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let log = "";
  agent.stdout?.on("data", (d: Buffer) => (log += d.toString()));
  // "close", not "exit": it comes once stdout has ended, so the last lines have been read.
  const code = await new Promise<number | null>((r) => agent.once("close", (c) => r(c)));
  return { code, log };
}

/** The pino lines of a log at `level` or above (50 error, 60 fatal). */
export function linesAtLeast(
  log: string,
  level: number,
): Array<{ level: number; msg: string; job_id?: string }> {
  return log
    .split("\n")
    .filter((l) => l.startsWith("{"))
    .map((l) => JSON.parse(l) as { level: number; msg: string; job_id?: string })
    .filter((l) => l.level >= level);
}

export function job(overrides: Record<string, unknown> = {}) {
  return {
    v: PROTOCOL_VERSION,
    job_id: `job-${Math.random().toString(36).slice(2, 10)}`,
    budget_ms: 7600,
    spec: { type: "tcp", params: { host: "127.0.0.1", port: 9 } },
    ...overrides,
  };
}

/** Node's options on every launch line of the agent (deploy/agent-release/vantage-agent.service says why). */
export const AGENT_NODE_OPTIONS = ["--optimize-for-size", "--no-maglev", "--no-opt"];
