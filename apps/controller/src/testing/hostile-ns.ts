import { type ChildProcess, execFileSync, spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { type Agent, request as httpRequest } from "node:http";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AideConfig } from "./hostile-ns-aide.js";

/**
 * Hostile networks for end-to-end tests: network namespaces holding only `lo` (plus what a test adds: a
 * blackhole route, a resolv.conf, sysctls), the built controller and agent running inside them, and the
 * test reaching them through unix sockets (hostile-ns-aide.ts pipes them to the namespace's loopback).
 * Namespaces are `vh-<run id>-<tag>`; the run's owner pid is kept in `$TMPDIR/vantage-hostile/<id>`, so a run
 * killed before its cleanup is swept by the next one. `destroy()` is synchronous: afterAll and `exit` both
 * call it.
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

function alivePid(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
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
  while (pids.some(alivePid) && Date.now() < deadline)
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20);
  for (const ns of names) {
    spawnSync("ip", ["netns", "delete", ns], { stdio: "ignore" });
    rmSync(join("/etc/netns", ns), { recursive: true, force: true });
  }
}

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
    if (owner && alivePid(owner)) continue;
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
  const processes: NsProcess[] = [];
  let destroyed = false;
  const destroy = (): void => {
    if (destroyed) return;
    destroyed = true;
    process.removeListener("exit", destroy);
    removeNamespaces(namespacesOf(`${prefix}${id}-`));
    rmSync(dir, { recursive: true, force: true });
  };
  process.on("exit", destroy);

  const namespace = (opts: NsOptions): HostileNs => {
    const name = `${prefix}${id}-${opts.tag}`;
    const nsDir = join(dir, opts.tag);
    mkdirSync(nsDir, { recursive: true });
    ip(["netns", "add", name]);
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
        alive: () => child.exitCode === null && child.signalCode === null && alivePid(child.pid ?? -1),
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

// ---- HTTP to a service inside a namespace, through the aide's unix socket ----

// biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON bodies
export type Json = any;

export interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Json;
  text: string;
  ms: number;
}

export function callSocket(
  socketPath: string,
  method: string,
  path: string,
  opts: { body?: unknown; headers?: Record<string, string>; timeoutMs?: number; agent?: Agent } = {},
): Promise<Reply> {
  const started = performance.now();
  const text =
    opts.body === undefined
      ? undefined
      : typeof opts.body === "string"
        ? opts.body
        : JSON.stringify(opts.body);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        socketPath,
        method,
        path,
        agent: opts.agent ?? false,
        headers: {
          ...(text === undefined ? {} : { "content-type": "application/json" }),
          ...opts.headers,
        },
        timeout: opts.timeoutMs ?? 30_000,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => {
          const t = Buffer.concat(chunks).toString();
          let body: Json;
          try {
            body = JSON.parse(t);
          } catch {
            body = undefined;
          }
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body,
            text: t,
            ms: performance.now() - started,
          });
        });
        res.on("error", reject);
      },
    );
    req.on("timeout", () =>
      req.destroy(new Error(`${method} ${path}: no answer within ${opts.timeoutMs ?? 30_000} ms`)),
    );
    req.on("error", reject);
    req.end(text);
  });
}

/** Resolves once something on the unix socket answers (NATS sends INFO first). */
export async function waitForSocket(path: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const s = connect(path);
      s.once("data", () => {
        s.destroy();
        resolve(true);
      });
      s.once("error", () => resolve(false));
      s.once("close", () => resolve(false));
    });
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`nothing answered on ${path} within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

// ---- the built controller and agent inside a namespace ----

export interface Service {
  label: string;
  form: "a" | "b";
  /** The unix socket the aide pipes to the controller's port. */
  sock: string;
  process: NsProcess;
  call(method: string, path: string, opts?: Parameters<typeof callSocket>[3]): Promise<Reply>;
}

/** `node scripts/build.mjs --if-stale …`: a no-op when the builds are current. */
export function buildIfStale(...apps: string[]): void {
  execFileSync(process.execPath, [join(root, "scripts/build.mjs"), "--if-stale", ...apps], {
    cwd: root,
    stdio: ["ignore", "ignore", "pipe"],
  });
}

/**
 * The built controller (apps/controller/dist/main.mjs) in `ns` on 127.0.0.1:port, with a copy of `dataDir`
 * (a migrated PGlite directory: initdb and the migrations would cost every process seconds of CPU), reached
 * through the aide's `p<port>.sock`. Resolves when /readyz answers 200.
 */
export async function startBuiltController(
  ns: HostileNs,
  o: {
    label: string;
    port: number;
    form: "a" | "b";
    dataDir: string;
    env?: Record<string, string>;
    wrap?: string[];
  },
): Promise<Service> {
  const data = join(ns.dir, `${o.label}-data`);
  cpSync(o.dataDir, data, { recursive: true });
  const proc = ns.spawn(
    o.label,
    [process.execPath, join(root, "apps/controller/dist/main.mjs")],
    {
      PORT: String(o.port),
      HOST: "127.0.0.1",
      VANTAGE_API_FORM: o.form,
      VANTAGE_DATA_DIR: data,
      VANTAGE_LOG_LEVEL: "warn",
      VANTAGE_ACCESS_LOG: "false",
      ...o.env,
    },
    o.wrap,
  );
  const sock = join(ns.dir, `p${o.port}.sock`);
  const service: Service = {
    label: o.label,
    form: o.form,
    sock,
    process: proc,
    call: (method, path, opts) => callSocket(sock, method, path, opts),
  };
  // Generous: ten of these starting at once on two busy cores take a while.
  const deadline = Date.now() + 240_000;
  for (;;) {
    if (!proc.alive()) throw new Error(`controller did not start: ${proc.describe()}`);
    const res = await service.call("GET", "/readyz", { timeoutMs: 2000 }).catch(() => null);
    if (res?.status === 200) return service;
    if (Date.now() > deadline) throw new Error(`controller not ready in 240 s: ${proc.describe()}`);
    await new Promise((r) => setTimeout(r, 150));
  }
}

/** The built agent (apps/agent/dist/vantage-agent.mjs) in `ns`, on the namespace's NATS at 127.0.0.1:4222. */
export function startBuiltAgent(
  ns: HostileNs,
  o: { nodeId: string; env?: Record<string, string>; wrap?: string[] },
): NsProcess {
  return ns.spawn(
    `agent ${o.nodeId}`,
    // With its preload, as `pnpm agent` and the systemd unit start it (a larger libuv thread pool).
    [
      process.execPath,
      "--require",
      join(root, "apps/agent/dist/threadpool.cjs"),
      join(root, "apps/agent/dist/vantage-agent.mjs"),
    ],
    {
      VANTAGE_NODE_ID: o.nodeId,
      VANTAGE_NODE_NAME: `hostile ${o.nodeId}`,
      VANTAGE_NODE_COUNTRY: "ZZ",
      VANTAGE_NODE_REGION: o.nodeId,
      VANTAGE_NODE_PROVIDER: "netns",
      NATS_URL: "nats://127.0.0.1:4222",
      VANTAGE_ALLOW_OPEN_NATS: "true",
      VANTAGE_ALLOW_PRIVATE_TARGETS: "true",
      VANTAGE_HEARTBEAT_MS: "1000",
      VANTAGE_LOG_LEVEL: "warn",
      ...o.env,
    },
    o.wrap,
  );
}

/** Waits until the controller lists these nodes online. */
export async function waitForNodes(
  service: Service,
  ids: readonly string[],
  timeoutMs = 60_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await service.call("GET", "/v1/nodes").catch(() => null);
    const items: { id: string; status: string }[] = res?.body?.data?.items ?? [];
    const online = new Set(items.filter((n) => n.status === "online").map((n) => n.id));
    if (ids.every((id) => online.has(id))) return;
    if (Date.now() > deadline)
      throw new Error(`nodes not online in ${timeoutMs} ms: ${[...online].join(", ")}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Every process of the tree under `pid` (itself first): an agent the controller runs as its child too. */
export function processTree(pid: number): number[] {
  const out = [pid];
  for (let i = 0; i < out.length; i++) {
    let tasks: string[] = [];
    try {
      tasks = readdirSync(`/proc/${out[i]}/task`);
    } catch {}
    for (const t of tasks) {
      try {
        for (const c of readFileSync(`/proc/${out[i]}/task/${t}/children`, "utf8").split(" "))
          if (c.trim()) out.push(Number(c));
      } catch {}
    }
  }
  return out;
}

/**
 * RLIMIT_NOFILE of every process under `pid` lowered to the descriptors it has open now plus `spare`: nearly
 * exhausted, whatever the process's baseline (PGlite alone holds ~45 files). Returns what was set.
 */
export function nearlyExhaustFds(pid: number, spare: number): { pid: number; open: number; limit: number }[] {
  return processTree(pid).map((p) => {
    const open = readdirSync(`/proc/${p}/fd`).length;
    const limit = open + spare;
    execFileSync("prlimit", ["--pid", String(p), `--nofile=${limit}:${limit}`], { stdio: "pipe" });
    return { pid: p, open, limit };
  });
}

/** A migrated PGlite data directory for `startBuiltController` to copy (made from the tests' dump). */
export async function migratedDataDir(dir: string): Promise<string> {
  const { PGlite } = await import("@electric-sql/pglite");
  const { migratedPgliteDump } = await import("./pglite-template.js");
  const dataDir = join(dir, "template-data");
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const pglite = new PGlite({ dataDir: join(dataDir, "pgdata"), loadDataDir: await migratedPgliteDump() });
  await pglite.waitReady;
  await pglite.close();
  execFileSync("chmod", ["-R", "go-rwx", dataDir]);
  return dataDir;
}
