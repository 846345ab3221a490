import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runSync, tool } from "./shell.js";

/**
 * Teardown that cannot be forgotten. Every lab owns the namespaces `vl-<id>-*` and a work directory that
 * records its owner pid. Destroying a namespace destroys its veth ends, so namespaces and the processes
 * inside them are all there is to remove. Teardown is synchronous so the same code serves `exit` and
 * signal handlers, and a later run (or `pnpm netlab:down`) sweeps labs whose owner died without it.
 */
export const labPrefix = "vl-";
export const stateRoot = join(tmpdir(), "vantage-netlab");

export interface LabOwner {
  pid: number;
  /** Started by `pnpm netlab:up`: lives on after its owner exits, until `pnpm netlab:down`. */
  manual: boolean;
  started: string;
}

export function labDir(id: string): string {
  return join(stateRoot, id);
}

export function writeOwner(id: string, owner: LabOwner): void {
  mkdirSync(labDir(id), { recursive: true });
  writeFileSync(join(labDir(id), "owner.json"), JSON.stringify(owner));
}

function readOwner(id: string): LabOwner | null {
  try {
    return JSON.parse(readFileSync(join(labDir(id), "owner.json"), "utf8")) as LabOwner;
  } catch {
    return null;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Whether `pid` still runs: alive and not a zombie. A service the lab spawned is this process's child, and
 * a child that has exited stays a zombie until the event loop reaps it, which it cannot do while
 * `removeNamespaces` waits synchronously (it waited its whole 2 s for the lab's own services).
 */
function running(pid: number): boolean {
  if (!alive(pid)) return false;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return false;
  }
}

/** Every namespace whose name starts with `prefix`. */
export function listNamespaces(prefix = labPrefix): string[] {
  const out = runSync(tool("ip"), ["netns", "list"]).stdout;
  return out
    .split("\n")
    .map((line) => line.split(" ")[0] ?? "")
    .filter((name) => name.startsWith(prefix));
}

function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** Stops the processes inside the namespaces (they were started by the lab), then deletes them. */
function removeNamespaces(names: string[]): void {
  const ip = tool("ip");
  const pids = new Set<number>();
  for (const ns of names) {
    for (const p of runSync(ip, ["netns", "pids", ns]).stdout.split("\n")) {
      const pid = Number(p);
      if (Number.isInteger(pid) && pid > 1 && pid !== process.pid) pids.add(pid);
    }
  }
  for (const pid of pids) signal(pid, "SIGTERM");
  const deadline = Date.now() + 2000;
  while ([...pids].some(running) && Date.now() < deadline) sleepSync(20);
  for (const pid of pids) if (running(pid)) signal(pid, "SIGKILL");
  for (const ns of names) {
    runSync(ip, ["netns", "delete", ns]);
    rmSync(join("/etc/netns", ns), { recursive: true, force: true });
  }
}

function signal(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch {}
}

/** Removes one lab completely: processes, namespaces, resolver overrides, work directory. */
export function destroyLab(id: string): void {
  removeNamespaces(listNamespaces(`${labPrefix}${id}-`));
  rmSync(labDir(id), { recursive: true, force: true });
}

/**
 * Removes leftover labs: those whose owner died, plus hand-started ones with `manual` (`netlab:down`). A
 * sweep never pulls a lab from under a test running in parallel unless `all` is given.
 */
export function sweepLabs(opts: { manual?: boolean; all?: boolean } = {}): string[] {
  const ids = new Set<string>();
  for (const ns of listNamespaces()) {
    const id = ns.slice(labPrefix.length).split("-")[0];
    if (id) ids.add(id);
  }
  if (existsSync(stateRoot)) for (const d of readdirSync(stateRoot)) ids.add(d);
  const removed: string[] = [];
  for (const id of ids) {
    const owner = readOwner(id);
    const orphan = !owner || (owner.manual ? opts.manual === true : !alive(owner.pid));
    if (opts.all || orphan) {
      destroyLab(id);
      removed.push(id);
    }
  }
  return removed;
}

const live = new Set<string>();
let hooked = false;

/** Destroys the lab when the process exits or is interrupted, whatever the test outcome. */
export function registerForCleanup(id: string): void {
  live.add(id);
  if (hooked) return;
  hooked = true;
  process.on("exit", destroyLive);
  for (const sig of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
    const onSignal = (): void => {
      destroyLive();
      // Restore the default action so the process still dies of the signal it received.
      process.removeListener(sig, onSignal);
      process.kill(process.pid, sig);
    };
    process.on(sig, onSignal);
  }
}

export function unregisterForCleanup(id: string): void {
  live.delete(id);
}

function destroyLive(): void {
  for (const id of live) destroyLab(id);
  live.clear();
}
