import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * What a test process leaves behind if it ends without its `afterAll` (a run cut short by Ctrl-C, a
 * `timeout`, a SIGKILL): the nats-servers, agents and controllers it spawned keep running as orphans, and
 * a PostgreSQL cluster started with pg_ctl is a daemon anyway. One detached shell per test process waits
 * for that process to end, then kills the processes registered here and runs the registered clean-ups.
 * A normal end unregisters everything first, so the shell then has nothing to do.
 */

/** The watcher's script: $1 the owner's pid, $2 the directory of entries (`*.pid`, then `*.sh`). */
const script = `while kill -0 "$1" 2>/dev/null; do sleep 1; done
for f in "$2"/*.pid; do [ -e "$f" ] && kill -9 $(cat "$f") 2>/dev/null; done
for f in "$2"/*.sh; do [ -e "$f" ] && sh "$f" >/dev/null 2>&1; done
rm -rf "$2"`;

let entries: string | undefined;
let next = 0;

function entryDir(): string {
  if (entries) return entries;
  const dir = mkdtempSync(join(tmpdir(), "vantage-owner-"));
  spawn("sh", ["-c", script, "sh", String(process.pid), dir], { detached: true, stdio: "ignore" }).unref();
  entries = dir;
  return dir;
}

function entry(ext: "pid" | "sh", content: string): () => void {
  const file = join(entryDir(), `${next++}.${ext}`);
  writeFileSync(file, content);
  return () => rmSync(file, { force: true });
}

/** Whether process `pid` exists (one of another user's counts: EPERM). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Kills `child` (SIGKILL) if this process ends while it still runs; forgotten once it exits, so a reused
 * pid is never hit.
 */
export function killWithOwner(child: ChildProcess): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  const forget = entry("pid", String(child.pid));
  child.once("exit", forget);
}

/**
 * Runs `argv` (a command line, each part single-quoted) if this process ends before the returned function
 * is called: e.g. stopping a daemon and removing its files.
 */
export function runWithOwner(...commands: string[][]): () => void {
  const quote = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;
  return entry("sh", `${commands.map((argv) => argv.map(quote).join(" ")).join("\n")}\n`);
}
