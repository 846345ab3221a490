import { type ChildProcess, execFileSync, spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { processAlive, runWithOwner } from "@vantage/testing";
import type { AideConfig } from "./hostile-ns-aide.js";

/**
 * Hostile networks for end-to-end tests: network namespaces holding only `lo` (plus what a test adds: a
 * blackhole route, a resolv.conf, sysctls); what runs inside them (the built controller and agent) and how
 * the test reaches it (unix sockets hostile-ns-aide.ts pipes to the namespace's loopback) is
 * hostile-services.ts.
 * Namespaces are `vh-<run id>-<tag>`. A run killed before its cleanup is removed by the owner watch
 * (@vantage/testing's runWithOwner) as its process ends; its owner pid is also kept in
 * `$TMPDIR/vantage-hostile/<id>`, so the next run sweeps what even that left. `destroy()` is synchronous:
 * afterAll and `exit` both call it.
 */

export const root = new URL("../../../../", import.meta.url).pathname;
const prefix = "vh-";
const stateRoot = join(tmpdir(), "vantage-hostile");
const aideScript = join(root, "apps/controller/src/testing/hostile-ns-aide.ts");

/** Fails (never skips) with what is missing: root, `ip`, `sysctl`, `setpriv`, `prlimit`, `nats-server`. */
export function requireHostileTools(): void {
  const missing: string[] = [];
  if (process.getuid?.() !== 0) missing.push("root (network namespaces)");
  for (const bin of ["ip", "sysctl", "setpriv", "prlimit", "nats-server"]) {
    if (spawnSync("sh", ["-c", `command -v ${bin}`], { stdio: "ignore" }).status !== 0) missing.push(bin);
  }
  if (missing.length > 0)
    throw new Error(
      `hostile-network tests need ${missing.join(", ")} (iproute2, procps, util-linux, nats-server; ` +
        "pnpm test installs the tools)",
    );
}

export interface NsProcess {
  label: string;
  pid: number;
  child: ChildProcess;
  /** The last few kB of stdout and stderr, and how it ended, for failure messages. */
  describe(): string;
  alive(): boolean;
}

export interface HostileNs {
  name: string;
  /** Work directory (unix sockets, data directories). */
  dir: string;
  /** `ip netns exec <ns> [...wrap] ...argv`, from the repository root. */
  spawn(label: string, argv: string[], env?: Record<string, string>, wrap?: string[]): NsProcess;
  /** Starts hostile-ns-aide.ts here and waits until it listens. */
  aide(config: AideConfig): Promise<NsProcess>;
}

export interface NsOptions {
  tag: string;
  /** The namespace's /etc/resolv.conf (bind-mounted by `ip netns exec`). */
  resolvConf: string;
  /** `ip route add …` argument lists, e.g. `["blackhole", "203.0.113.0/24"]`. */
  routes?: string[][];
  /** sysctl settings inside the namespace, e.g. `{"net.ipv6.conf.all.disable_ipv6": "1"}`. */
  sysctls?: Record<string, string>;
}

function ip(args: string[]): string {
  return execFileSync("ip", args, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
}

function namespacesOf(runPrefix: string): string[] {
  return ip(["netns", "list"])
    .split("\n")
    .map((l) => l.split(" ")[0] ?? "")
    .filter((n) => n.startsWith(runPrefix));
}

/** Kills what runs in the namespaces, deletes them and their /etc/netns entries. */
function removeNamespaces(names: string[]): void {
  const pids = names.flatMap((ns) =>
    spawnSync("ip", ["netns", "pids", ns], { encoding: "utf8" })
      .stdout.split("\n")
      .map(Number)
      .filter((p) => Number.isInteger(p) && p > 1 && p !== process.pid),
  );
  for (const pid of pids) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {}
  }
  const deadline = Date.now() + 2000;
  while (pids.some(processAlive) && Date.now() < deadline)
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20);
  for (const ns of names) {
    spawnSync("ip", ["netns", "delete", ns], { stdio: "ignore" });
    rmSync(join("/etc/netns", ns), { recursive: true, force: true });
  }
}

/** `removeNamespaces` for one namespace (`$1`) as the owner watch runs it, after this process has ended. */
const removeNamespaceScript =
  'for p in $(ip netns pids "$1"); do kill -9 "$p"; done; ip netns delete "$1"; rm -rf "/etc/netns/$1"';

/** Removes runs whose owner process is gone (a test killed before its afterAll). */
function sweepOrphans(): void {
  const ids = new Set(namespacesOf(prefix).map((n) => n.slice(prefix.length).split("-")[0] ?? ""));
  if (existsSync(stateRoot)) for (const d of readdirSync(stateRoot)) ids.add(d);
  for (const id of ids) {
    if (!id) continue;
    let owner = 0;
    try {
      owner = JSON.parse(readFileSync(join(stateRoot, id, "owner.json"), "utf8")).pid;
    } catch {}
    if (owner && processAlive(owner)) continue;
    removeNamespaces(namespacesOf(`${prefix}${id}-`));
    rmSync(join(stateRoot, id), { recursive: true, force: true });
  }
}

export interface HostileRun {
  id: string;
  dir: string;
  namespace(opts: NsOptions): HostileNs;
  /** Every process started in this run's namespaces. */
  processes: NsProcess[];
  destroy(): void;
}

export function startHostileRun(): HostileRun {
  requireHostileTools();
  sweepOrphans();
  const id = randomBytes(3).toString("hex");
  const dir = join(stateRoot, id);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "owner.json"), JSON.stringify({ pid: process.pid }));
  // A run whose process is killed (no `exit` event) is cleaned up by the owner watch at once; the sweep
  // above is for one whose watcher went too.
  const forget = [runWithOwner(["rm", "-rf", dir])];
  const processes: NsProcess[] = [];
  let destroyed = false;
  const destroy = (): void => {
    if (destroyed) return;
    destroyed = true;
    process.removeListener("exit", destroy);
    removeNamespaces(namespacesOf(`${prefix}${id}-`));
    rmSync(dir, { recursive: true, force: true });
    for (const f of forget) f();
  };
  process.on("exit", destroy);

  const namespace = (opts: NsOptions): HostileNs => {
    const name = `${prefix}${id}-${opts.tag}`;
    const nsDir = join(dir, opts.tag);
    mkdirSync(nsDir, { recursive: true });
    ip(["netns", "add", name]);
    forget.push(runWithOwner(["sh", "-c", removeNamespaceScript, "sh", name]));
    ip(["-n", name, "link", "set", "lo", "up"]);
    mkdirSync(join("/etc/netns", name), { recursive: true });
    writeFileSync(join("/etc/netns", name, "resolv.conf"), opts.resolvConf);
    for (const r of opts.routes ?? []) ip(["-n", name, "route", "add", ...r]);
    for (const [k, v] of Object.entries(opts.sysctls ?? {}))
      execFileSync("ip", ["netns", "exec", name, "sysctl", "-q", "-w", `${k}=${v}`], { stdio: "pipe" });

    const spawnIn = (
      label: string,
      argv: string[],
      env: Record<string, string> = {},
      wrap: string[] = [],
    ) => {
      const child = spawn("ip", ["netns", "exec", name, ...wrap, ...argv], {
        cwd: root,
        env: { ...process.env, ...env },
        stdio: ["pipe", "pipe", "pipe"],
      });
      let tail = "";
      const keep = (d: Buffer): void => {
        tail = (tail + d.toString()).slice(-3000);
      };
      child.stdout?.on("data", keep);
      child.stderr?.on("data", keep);
      const p: NsProcess = {
        label,
        pid: child.pid ?? -1,
        child,
        alive: () => child.exitCode === null && child.signalCode === null && processAlive(child.pid ?? -1),
        describe: () =>
          `${label} (pid ${child.pid}, ${
            child.exitCode === null && child.signalCode === null
              ? "running"
              : `exited: code ${child.exitCode}, signal ${child.signalCode}`
          }); its output ends:\n${tail.trim().split("\n").slice(-12).join("\n")}`,
      };
      processes.push(p);
      return p;
    };

    return {
      name,
      dir: nsDir,
      spawn: spawnIn,
      async aide(config) {
        const p = spawnIn(`aide in ${name}`, [
          process.execPath,
          "--import",
          "tsx",
          aideScript,
          JSON.stringify(config),
        ]);
        await new Promise<void>((resolve, reject) => {
          let out = "";
          p.child.stdout?.on("data", (d: Buffer) => {
            out += d.toString();
            if (out.includes("ready\n")) resolve();
          });
          p.child.once("exit", () => reject(new Error(`the aide did not start: ${p.describe()}`)));
        });
        return p;
      },
    };
  };
  return { id, dir, namespace, processes, destroy };
}
