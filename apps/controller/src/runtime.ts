import { join, resolve } from "node:path";
import {
  authorizationProbeSubject,
  type ControllerTransport,
  checkAuthorizationUntilConclusive,
  connectNats,
  InProcessBus,
  isAuthorizationProbeRefusal,
  isNatsAuthorizationError,
  natsControllerTransport,
  type ResultsLog,
} from "@vantage/transport";
import type { Logger } from "pino";
import { type App, createApp } from "./app.js";
import { type Config, ConfigError } from "./config.js";
import type { Role } from "./config-process.js";
import { maskUrlCredentials } from "./config-values.js";
import { describeDbError, isDatabaseUnavailable } from "./db/availability.js";
import { configuredDb, connectDb, type Db, migrate } from "./db/connect.js";
import { newInstanceId, startLease } from "./db/lease.js";
import type { Module, Worker } from "./deps.js";
import { type EmbeddedAgent, startEmbeddedAgent } from "./embedded-agent/supervisor.js";
import { directListener } from "./http/direct-routes.js";
import { type Listening, listen } from "./http/listen.js";
import { HttpMetrics } from "./http/metrics.js";
import { listenMetrics, publicMetricsWarning } from "./http/metrics-endpoint.js";
import { resolveJwtSecret } from "./modules/accounts/index.js";
import { openResultsLogOrSay } from "./results-log.js";

/**
 * The start cannot go on for a reason outside the process (the database cannot be reached): main.ts prints
 * its message as one line and exits 1, which a service manager answers by starting it again.
 */
export class StartupError extends Error {}

/** Everything a running controller holds, with one stop function that releases it in reverse order. */
export interface Runtime extends App {
  config: Config;
  db: Db;
  transport: ControllerTransport;
  bus: InProcessBus | undefined;
  /** What /metrics shows: the process's series, and those of the roles running (HTTP: the api role's). */
  metrics: HttpMetrics;
  /** The embedded mode's local agent (a supervised child process); undefined with NATS. */
  embeddedAgent: EmbeddedAgent | undefined;
  /** The roles running, in start order. */
  roles: readonly Role[];
  /** Where the api role listens; undefined on a controller without it. */
  url: string | undefined;
  stop(): Promise<void>;
}

/**
 * What the runtime starts, in this order, and stops in reverse: `metrics` (the VANTAGE_METRICS_LISTEN
 * server, run with any roles when it is set), then the modules' workers role by role (presence, scheduler,
 * notifier; each module declares its own, see `Module.workers`), `embedded` (the all-in-one mode's local
 * agent, run whenever there is no NATS), the api role's workers, and last the API port, so it opens only
 * once everything behind it runs. A controller without the api role opens no API port.
 */
function roleEntries(
  built: App,
  ctx: {
    config: Config;
    log: Logger;
    bus: InProcessBus | undefined;
    metrics: HttpMetrics;
    probeModule: string | undefined;
  },
) {
  let http: Listening | undefined;
  let metricsHttp: Listening | undefined;
  let agent: EmbeddedAgent | undefined;
  type Entry = { role: Role | "metrics" | "embedded"; name: string } & Worker;
  const modules: readonly Module<unknown>[] = Object.values(built.modules);
  // Within a role, in the order app.ts creates the modules: a module's workers after those it uses.
  const workersOf = (role: Role): Entry[] =>
    modules.flatMap((m) => (m.workers ?? []).filter((w) => w.role === role));
  const entries: Entry[] = [
    // /metrics on its own server (the API port then has none), whatever the roles, so a controller without
    // the api role can be scraped too. Opened first and closed last: it shows each role's series while that
    // role runs.
    {
      role: "metrics",
      name: "metrics-listener",
      async start() {
        const { config, log } = ctx;
        if (!config.VANTAGE_METRICS_LISTEN) return;
        metricsHttp = await listenMetrics({
          metrics: ctx.metrics,
          token: config.VANTAGE_METRICS_TOKEN,
          ...config.VANTAGE_METRICS_LISTEN,
          graceMs: config.VANTAGE_SHUTDOWN_GRACE_MS,
          log,
        });
        log.info(
          { url: `${metricsHttp.url}/metrics`, token: !!config.VANTAGE_METRICS_TOKEN },
          "metrics listening",
        );
      },
      async stop() {
        await metricsHttp?.close();
      },
    },
    ...workersOf("presence"),
    ...workersOf("scheduler"),
    ...workersOf("notifier"),
    {
      role: "embedded",
      name: "local-agent",
      async start() {
        if (ctx.bus) agent = await startLocalAgent(ctx.bus, ctx);
      },
      async stop() {
        await agent?.stop();
      },
    },
    ...workersOf("api"),
    {
      role: "api",
      name: "http",
      async start() {
        const { config, log } = ctx;
        const warning = publicMetricsWarning({
          host: config.HOST,
          token: config.VANTAGE_METRICS_TOKEN,
          listen: config.VANTAGE_METRICS_LISTEN,
        });
        if (warning) log.warn({ host: config.HOST }, warning);
        http = await listen({
          fetch: built.app.fetch,
          direct: directListener(built.app),
          host: config.HOST,
          port: config.PORT,
          graceMs: config.VANTAGE_SHUTDOWN_GRACE_MS,
          log,
        });
        log.info({ url: http.url, form: config.VANTAGE_API_FORM }, "listening");
      },
      async stop() {
        await http?.close();
      },
    },
  ];
  return { entries, url: () => http?.url, agent: () => agent };
}

export async function startRuntime(
  config: Config,
  log: Logger,
  opts: {
    /**
     * Tests: runs on this open database instead of connecting (a test database lent by the worker's pool,
     * `testing/pglite-pool.ts`, which a PGlite open from the dump costs over a second of CPU); `stop`
     * closes it, as it closes its own.
     */
    db?: Db;
    /** Tests: the embedded agent child runs this module's `probe` instead of the real probes. */
    embeddedProbeModule?: string;
  } = {},
): Promise<Runtime> {
  const jwtSecret = resolveJwtSecret(
    {
      secret: config.VANTAGE_JWT_SECRET,
      dataDir: config.VANTAGE_DATA_DIR,
      distributed: !!config.DATABASE_URL,
    },
    log,
  );
  config = { ...config, VANTAGE_JWT_SECRET: jwtSecret };
  // The error that closed the availability gate: named if the start cannot go on without the database.
  let awayBecause: unknown;
  const db =
    opts.db ??
    (await connectDb({
      ...configuredDb(config),
      log,
      connectTimeoutMs: config.VANTAGE_DB_CONNECT_TIMEOUT_MS,
      queryTimeoutMs: config.VANTAGE_DB_QUERY_TIMEOUT_MS,
      onAvailabilityChange: (up, err) => {
        if (!up) awayBecause = err;
        if (up) log.info("database answers again");
        else
          log.warn(
            { err },
            "database unavailable: requests that need it answer 503 at once until it is back",
          );
      },
    }));
  let applied: Awaited<ReturnType<typeof migrate>>;
  try {
    applied = await migrate(db);
  } catch (err) {
    // Only its own connection: a database handed in (tests) is the caller's to close.
    if (opts.db || !config.DATABASE_URL || !isDatabaseUnavailable(err)) throw err;
    await db.close().catch(() => {});
    throw new StartupError(
      `the database cannot be reached (${describeDbError(awayBecause ?? err)}): check DATABASE_URL's host ` +
        "and port and that PostgreSQL runs; once started, a controller rides out the database's outages",
    );
  }
  log.info({ database: db.kind, applied }, "database ready");

  const instanceId = newInstanceId();
  let transport: ControllerTransport;
  let bus: InProcessBus | undefined;
  let resultsLog: ResultsLog | undefined;
  if (config.NATS_URL) {
    const servers = maskUrlCredentials(config.NATS_URL);
    log.info({ servers }, "connecting to NATS (retries until the server answers)");
    // The start-up check's own subscription is refused on purpose: not worth a warning.
    const probeSubject = authorizationProbeSubject();
    let nc: Awaited<ReturnType<typeof connectNats>>;
    try {
      nc = await connectNats({
        servers: config.NATS_URL,
        noRandomize: config.NATS_NO_RANDOMIZE,
        name: "vantage-controller",
        nkeySeedFile: config.NATS_NKEY_SEED_FILE,
        credsFile: config.NATS_CREDS_FILE,
        tlsCaFile: config.NATS_TLS_CA_FILE,
        onStatus: (s) => {
          if (s.type === "error" && isAuthorizationProbeRefusal(s.data, probeSubject)) return;
          logNatsStatus(log, s.type);
        },
      });
    } catch (err) {
      if (!isNatsAuthorizationError(err)) throw err;
      await db.close();
      throw new ConfigError(
        `NATS refused the controller's credentials (${(err as Error).message}): set NATS_NKEY_SEED_FILE to ` +
          "the seed `pnpm nats:controller-user` wrote, and check the server's users file holds its public key " +
          "and was reloaded",
      );
    }
    try {
      await requireEnforcedPermissions(nc, probeSubject, config, log);
    } catch (err) {
      await nc.close().catch(() => {});
      await db.close();
      throw err;
    }
    transport = natsControllerTransport(nc);
    log.info({ servers }, "connected to NATS");
    resultsLog = await openResultsLogOrSay(nc, instanceId, log);
  } else {
    bus = new InProcessBus();
    transport = bus.controller();
    log.info("NATS_URL unset: using the in-process transport");
  }

  // The HTTP series belong to the api role: a controller without it does not export them.
  const metrics = new HttpMetrics(true, { http: config.VANTAGE_ROLES.includes("api") });
  const lease = startLease(db, instanceId, log, config.VANTAGE_CONTROLLER_LEASE_MS);
  const built = createApp({ config, db, log, transport, metrics, instanceId, resultsLog });
  const { entries, url, agent } = roleEntries(built, {
    config,
    log,
    bus,
    metrics,
    probeModule: opts.embeddedProbeModule,
  });
  const selected = entries.filter((e) =>
    e.role === "embedded" ? !!bus : e.role === "metrics" || config.VANTAGE_ROLES.includes(e.role),
  );
  const running: typeof entries = [];

  // Requests end first (api), then the work they started (drain), then the other roles in reverse.
  const stop = async () => {
    const reversed = [...running].reverse();
    for (const e of reversed) if (e.role === "api") await e.stop();
    await built.drain(config.VANTAGE_SHUTDOWN_GRACE_MS);
    for (const e of reversed) if (e.role !== "api") await e.stop();
    await built.modules.accounts.close();
    // Last: the lease says this controller still finishes its tasks, and it has.
    await lease.stop();
    await transport.close();
    await db.close();
  };

  try {
    for (const e of selected) {
      await e.start();
      running.push(e);
      log.debug({ role: e.role, worker: e.name }, "started");
    }
  } catch (err) {
    await stop().catch(() => {});
    throw err;
  }
  const roles = [
    ...new Set(running.flatMap((e) => (e.role === "embedded" || e.role === "metrics" ? [] : [e.role]))),
  ];
  log.info({ roles }, "controller running");

  return { ...built, config, db, transport, bus, metrics, embeddedAgent: agent(), roles, url: url(), stop };
}

/**
 * Before serving, the controller makes sure the NATS server enforces permissions: on an open server any
 * client could send jobs to the nodes or answer as any of them. The check subscribes to a node's job
 * subject, which the controller's credentials never allow (it publishes jobs, never receives them). An
 * open server stops the controller with one line (exit 2) unless VANTAGE_ALLOW_OPEN_NATS=true; a server
 * that answers neither way in time is asked again.
 */
async function requireEnforcedPermissions(
  nc: Awaited<ReturnType<typeof connectNats>>,
  probeSubject: string,
  config: Config,
  log: Logger,
): Promise<void> {
  const check = await checkAuthorizationUntilConclusive(nc, {
    probeSubject,
    onRetry: (c) =>
      log.warn({ detail: c.detail }, "could not check that NATS enforces permissions; trying again"),
  });
  if (check.enforced) {
    log.info({ subject: check.subject }, "NATS enforces permissions");
    return;
  }
  const line =
    "NATS server does not enforce permissions: any client could send jobs to the nodes or answer as any of them";
  if (!config.VANTAGE_ALLOW_OPEN_NATS) {
    throw new ConfigError(
      `${line}; configure authorization (docs/operations.md) or set VANTAGE_ALLOW_OPEN_NATS=true for development`,
    );
  }
  log.warn(
    { subject: probeSubject },
    `${line}; serving anyway because VANTAGE_ALLOW_OPEN_NATS=true (development only)`,
  );
}

/** Connection trouble is worth a warning; the once-a-second `reconnecting` and pings are noise. */
function logNatsStatus(log: Logger, type: string): void {
  if (type === "ping" || type === "reconnecting") log.debug({ nats: type }, "nats status");
  else if (type === "disconnect" || type === "staleConnection" || type === "slowConsumer" || type === "error")
    log.warn({ nats: type }, "nats status");
  else log.info({ nats: type }, "nats status");
}

/**
 * The embedded local node: id `local`, name "Local node", country `ZZ` (ISO 3166 "unknown"; the controller
 * cannot know where it runs), region and provider `local`; it follows VANTAGE_ALLOW_PRIVATE_TARGETS. Its
 * agent runs in a supervised child process (embedded-agent/), so a probe can never take the API down; a
 * controller in distributed mode never starts it.
 */
async function startLocalAgent(
  bus: InProcessBus,
  ctx: { config: Config; log: Logger; metrics: HttpMetrics; probeModule: string | undefined },
): Promise<EmbeddedAgent> {
  return startEmbeddedAgent({
    bus,
    settings: {
      VANTAGE_NODE_ID: "local",
      VANTAGE_NODE_NAME: "Local node",
      VANTAGE_NODE_COUNTRY: "ZZ",
      VANTAGE_NODE_REGION: "local",
      VANTAGE_NODE_PROVIDER: "local",
      VANTAGE_AGENT_CONCURRENCY: 64,
      VANTAGE_HEARTBEAT_MS: 5000,
      VANTAGE_ALLOW_PRIVATE_TARGETS: ctx.config.VANTAGE_ALLOW_PRIVATE_TARGETS,
    },
    log: ctx.log,
    registry: ctx.metrics.registry,
    stopGraceMs: ctx.config.VANTAGE_SHUTDOWN_GRACE_MS,
    probeModule: ctx.probeModule,
    // A memory:// data dir keeps nothing: the child then signs with a key that lives as long as it does.
    signingKeyFile: ctx.config.VANTAGE_DATA_DIR.startsWith("memory://")
      ? undefined
      : join(resolve(ctx.config.VANTAGE_DATA_DIR), "agent-signing-key.pem"),
  });
}
