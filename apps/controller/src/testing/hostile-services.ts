import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, readdirSync, readFileSync } from "node:fs";
import { type Agent, request as httpRequest } from "node:http";
import { connect } from "node:net";
import { join } from "node:path";
import { type HostileNs, type NsProcess, root } from "./hostile-ns.js";

/**
 * What runs inside a hostile namespace (hostile-ns.ts): the built controller and agent, reached from the
 * test through the unix sockets the namespace's aide pipes to its loopback, and the helpers the tests use
 * on them (waiting for nodes, nearly exhausting their file descriptors, a migrated PGlite data directory).
 */
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
  const { extractDataDir } = await import("../db/pglite-template.js");
  const { migratedPgliteDump } = await import("./pglite-template.js");
  const dataDir = join(dir, "template-data");
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  extractDataDir(new Uint8Array(await (await migratedPgliteDump()).arrayBuffer()), join(dataDir, "pgdata"));
  return dataDir;
}
