import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** The probes' entry point, for a child script to import by absolute path. */
export const probesEntry = fileURLToPath(new URL("../index.ts", import.meta.url));

export interface ChildRun {
  status: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** Each stdout line that is JSON, parsed. */
  lines: unknown[];
}

export interface ChildOptions {
  /** Run inside this network namespace (`ip netns exec`). */
  netns?: string;
  /** The child's limit of open files (`ulimit -n`). */
  maxOpenFiles?: number;
}

/**
 * Runs `source` (TypeScript, ESM) in a Node process of its own. A failure that escapes a probe ends the
 * process, which a test inside vitest's own process could not observe, nor survive: the child's exit
 * status and its printed results are the proof that it settled. No handler for uncaught exceptions is
 * installed: a crash must stay a crash.
 */
export function runChildNode(source: string, options: ChildOptions = {}): ChildRun {
  const dir = mkdtempSync(join(tmpdir(), "vantage-probes-child-"));
  const script = join(dir, "child.mts");
  writeFileSync(script, source);
  const root = fileURLToPath(new URL("../../../..", import.meta.url));
  const limit = options.maxOpenFiles === undefined ? "" : `ulimit -n ${options.maxOpenFiles} && `;
  const node = `${limit}exec node --import tsx ${JSON.stringify(script)}`;
  const [command, args] =
    options.netns === undefined
      ? ["bash", ["-c", node]]
      : ["ip", ["netns", "exec", options.netns, "bash", "-c", node]];
  try {
    const r = spawnSync(command as string, args as string[], {
      cwd: root,
      encoding: "utf8",
      timeout: 120_000,
    });
    if (r.error) throw new Error(`cannot run ${command}: ${r.error.message}`);
    const lines = r.stdout
      .split("\n")
      .filter((l) => l.startsWith("{") || l.startsWith("["))
      .map((l) => JSON.parse(l) as unknown);
    return { status: r.status, signal: r.signal, stdout: r.stdout, stderr: r.stderr, lines };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
