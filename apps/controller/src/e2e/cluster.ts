import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createAgentCredentials, createControllerCredentials } from "@vantage/nats-auth";
import {
  appArgs,
  createTestDatabase,
  deployedArgs,
  killWithOwner,
  listeningOn,
  type NatsServer,
  type NatsUser,
  repoRoot,
  startNatsServer,
  type TestDatabase,
  writeSeedFile,
} from "@vantage/testing";
import type { ApiForm } from "../http/security.js";
import { planLimitsEnv } from "../testing/plan-limits.js";
import { formContract } from "../testing/test-app.js";

/**
 * A distributed deployment on loopback for end-to-end tests and benchmarks: nats-server with per-agent nkey
 * credentials, a fresh PostgreSQL database, agent processes and a controller process (restartable, e.g.
 * once per API form).
 */

export interface AgentSpec {
  id: string;
  country: string;
  region: string;
  provider: string;
}

export interface Controller {
  /** Where its API listens (nothing listens there on a controller without the api role). */
  url: string;
  /** The API form it serves (`VANTAGE_API_FORM`, default b): `call` checks answers against its document. */
  form: ApiForm;
  /** SIGTERM, as a service manager stops it; SIGKILL after 10 s. */
  stop(): Promise<void>;
  /** A signal of the test's choosing, e.g. SIGKILL for a crash; resolves when the process has exited. */
  kill(signal: NodeJS.Signals): Promise<void>;
}

export interface Cluster {
  nats: NatsServer;
  db: TestDatabase;
  agents: Map<string, ChildProcess>;
  /**
   * Starts a controller process on a port it picks; resolves once it logs `listening` (its URL), or, when
   * `VANTAGE_ROLES` leaves out the api role (no port), once it logs `controller running`.
   */
  startController(env?: Record<string, string>): Promise<Controller>;
  /** Waits until `GET /v1/nodes` lists these nodes online. */
  waitForNodes(url: string, ids: readonly string[], timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
}

/** A process of the cluster started with these node arguments (appArgs or deployedArgs), from `cwd`. */
function spawnApp(args: string[], env: Record<string, string>, name: string, cwd = repoRoot): ChildProcess {
  const child = spawn(process.execPath, args, {
    cwd,
    env: { ...process.env, VANTAGE_LOG_LEVEL: "warn", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  killWithOwner(child);
  child.stderr?.on("data", (d: Buffer) => {
    if (process.env.VANTAGE_E2E_VERBOSE) process.stderr.write(`[${name}] ${d.toString()}`);
  });
  // Log lines (stdout) are read and dropped, but for what a failed assertion on a 500 would need: the
  // error behind each answer the server could not give (or all of them with VANTAGE_E2E_VERBOSE).
  child.stdout?.on("data", (d: Buffer) => {
    for (const line of d.toString().split("\n")) {
      if (process.env.VANTAGE_E2E_VERBOSE || line.includes('"msg":"unhandled error"'))
        process.stderr.write(`[${name} log] ${line.slice(0, 4000)}\n`);
    }
  });
  return child;
}

async function kill(child: ChildProcess, signal: NodeJS.Signals = "SIGTERM"): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once("exit", r));
  child.kill(signal);
  const forced = setTimeout(() => child.kill("SIGKILL"), 10_000);
  await exited;
  clearTimeout(forced);
}

/**
 * Controller environment for leases of 8 s (renewed, swept and drained every 2 s) instead of 20: a killed
 * controller's tasks are failed, and its results log stored, that much sooner. Give it to every controller
 * of a cluster: each judges the others' leases by its own lifetime.
 */
export const shortLeases = { VANTAGE_CONTROLLER_LEASE_MS: "8000" } as const;

export interface ClusterOptions {
  /** A database of the test's own (e.g. a cluster it stops and starts); default: a fresh test database. */
  databaseUrl?: string;
  /** NATS of the test's own, given the cluster's users (e.g. several servers: nats-cluster.ts); default one server. */
  nats?: (opts: { users: NatsUser[] }) => Promise<NatsServer>;
  /** More environment for an agent (e.g. its own NATS_URL, its preferred server first). */
  agentEnv?: (agentId: string) => Record<string, string>;
  /**
   * JetStream on the default server (the results write-ahead log, ADR 0012); default true. False: a
   * server without it, as before the log (answered Form B tasks only written behind the answer).
   */
  jetstream?: boolean;
  /**
   * Run the built bundles as deployed (`node scripts/build.mjs agent controller` first): the controller and
   * agents with the arguments of package.json's `controller` and `agent` scripts (the agent's production
   * flags), whatever the run; default as the suite starts apps (appArgs: the bundles its global set-up
   * built, or the TypeScript sources through tsx outside it).
   */
  built?: boolean;
  /**
   * Another checkout whose built bundles the controllers and agents run (`built` only; its own
   * `scripts/build.mjs` first): a bench's "before" beside this checkout's "after" in one run.
   */
  tree?: string;
}

export async function startCluster(
  agentSpecs: readonly AgentSpec[],
  opts: ClusterOptions = {},
): Promise<Cluster> {
  if (opts.tree && !opts.built) throw new Error("startCluster: `tree` runs built bundles; set `built`");
  const cwd = opts.tree ?? repoRoot;
  const run = (app: "agent" | "controller") => (opts.built ? deployedArgs(app, cwd) : appArgs(app));
  const dir = mkdtempSync(join(tmpdir(), "vantage-e2e-"));
  const seedFile = (name: string, seed: string) => writeSeedFile(dir, name, seed);
  const controllerCreds = createControllerCredentials();
  const agentCreds = agentSpecs.map((a) => ({ spec: a, creds: createAgentCredentials(a.id) }));
  const users = [controllerCreds.user, ...agentCreds.map((a) => a.creds.user)];
  const nats = await (opts.nats
    ? opts.nats({ users })
    : startNatsServer({ users, jetstream: opts.jetstream ?? true }));
  const db: TestDatabase = opts.databaseUrl
    ? { url: opts.databaseUrl, name: "external", drop: async () => {} }
    : await createTestDatabase();
  const controllerSeed = seedFile("controller", controllerCreds.seed);

  const agents = new Map<string, ChildProcess>();
  for (const { spec, creds } of agentCreds) {
    agents.set(
      spec.id,
      spawnApp(
        run("agent"),
        {
          VANTAGE_NODE_ID: spec.id,
          VANTAGE_NODE_NAME: `Agent ${spec.id}`,
          VANTAGE_NODE_COUNTRY: spec.country,
          VANTAGE_NODE_REGION: spec.region,
          VANTAGE_NODE_PROVIDER: spec.provider,
          NATS_URL: nats.url,
          NATS_NKEY_SEED_FILE: seedFile(spec.id, creds.seed),
          VANTAGE_ALLOW_PRIVATE_TARGETS: "true",
          VANTAGE_HEARTBEAT_MS: "1000",
          ...opts.agentEnv?.(spec.id),
        },
        `agent ${spec.id}`,
        cwd,
      ),
    );
  }
  const controllers = new Set<ChildProcess>();

  return {
    nats,
    db,
    agents,
    async startController(env = {}) {
      const roles = env.VANTAGE_ROLES?.split(",").map((r) => r.trim());
      const serves = !roles || roles.includes("api");
      const child = spawnApp(
        run("controller"),
        {
          // The controller takes a free port itself and logs it (`listening`, at info): a port picked here
          // beforehand could be taken by another file's server before the controller binds it, and a test
          // then met that server (seen once: an accept-and-close target answered `GET /v1/nodes`).
          PORT: "0",
          HOST: "127.0.0.1",
          NATS_URL: nats.url,
          NATS_NKEY_SEED_FILE: controllerSeed,
          DATABASE_URL: db.url,
          VANTAGE_ALLOW_PRIVATE_TARGETS: "true",
          VANTAGE_ACCESS_LOG: "false",
          // Every test client is 127.0.0.1; the limits have their own tests.
          VANTAGE_PLAN_LIMITS: planLimitsEnv(),
          // Its start is seen in the log: `listening` with its URL, or `controller running` without a port.
          VANTAGE_LOG_LEVEL: "info",
          ...env,
        },
        "controller",
        cwd,
      );
      controllers.add(child);
      // Two minutes: a start through tsx compiles the controller, and with other test processes on the two
      // cores (load 20 and more here) that alone has taken over one.
      const { url } = await listeningOn(child, { serves, timeoutMs: 120_000 });
      const form = env.VANTAGE_API_FORM === "a" ? "a" : "b";
      formContract(form); // built now, not while the suite's first answers wait (`call` checks them)
      return {
        url,
        form,
        async stop() {
          await kill(child);
          controllers.delete(child);
        },
        async kill(signal) {
          await kill(child, signal);
          controllers.delete(child);
        },
      };
    },
    async waitForNodes(url, ids, timeoutMs = 60_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const res = await fetch(`${url}/v1/nodes`).then(
          (r) => r.json() as Promise<{ data: { items: { id: string; status: string }[] } }>,
        );
        const online = new Set(res.data.items.filter((n) => n.status === "online").map((n) => n.id));
        if (ids.every((id) => online.has(id))) return;
        if (Date.now() > deadline)
          throw new Error(`nodes not online after ${timeoutMs} ms: ${[...online].join(",")}`);
        await new Promise((r) => setTimeout(r, 200));
      }
    },
    async stop() {
      await Promise.all([...controllers].map((c) => kill(c)));
      await Promise.all([...agents.values()].map((a) => kill(a)));
      await nats.stop();
      await db.drop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
