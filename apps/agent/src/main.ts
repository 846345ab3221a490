import { readFileSync, statSync } from "node:fs";
import { errors, type NatsConnection } from "@nats-io/transport-node";
import { type ResultSigner, resultSigner, subjects } from "@vantage/protocol";
import {
  authorizationProbeSubject,
  checkAuthorizationUntilConclusive,
  connectNats,
  isAuthorizationProbeRefusal,
  isNatsAuthorizationError,
  natsAgentLink,
} from "@vantage/transport";
import { type Logger, pino } from "pino";
import type { RunningAgent } from "./agent.js";
import { type AgentConfig, ConfigError, loadConfig } from "./config.js";
import { installCrashGuard } from "./crash-guard.js";
import { ExitLog } from "./exit-log.js";
import { nkeySeedAuthenticator, parseUserSeed } from "./nkey-auth.js";
import { AGENT_VERSION } from "./presence.js";

const CLOSE_TIMEOUT_MS = 5000;
/** libuv's pool size when UV_THREADPOOL_SIZE was not in the environment at start. */
const LIBUV_DEFAULT_THREADPOOL_SIZE = 4;

const exits: ExitLog = new ExitLog();

/**
 * Composition root: config → logger → NATS → agent; SIGTERM/SIGINT drain the agent and exit 0; SIGHUP is
 * logged and ignored; an uncaught error is logged, reported to the controller and exits 70 (crash-guard.ts).
 * Every exit logs its reason and code (exit-log.ts).
 */
async function main(): Promise<void> {
  // Before anything else: a SIGHUP (a closed terminal, `systemctl reload`) must not end the agent unheard.
  let log: Logger | undefined;
  process.on("SIGHUP", () => {
    const line =
      "SIGHUP: ignored; the agent reads its settings once, from the environment at start: restart it to apply changes";
    if (log) log.warn({ signal: "SIGHUP" }, line);
    else process.stderr.write(`vantage-agent: ${line}\n`);
  });
  let config: AgentConfig;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      exits.exit(2, "invalid configuration");
    }
    throw err;
  }

  log = pino(
    {
      name: "vantage-agent",
      level: config.VANTAGE_LOG_LEVEL,
      base: { pid: process.pid },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    // Synchronous: pino's default stdout stream writes on the thread pool, so a line written just before
    // process.exit could land after the exit line, or not at all.
    pino.destination({ dest: 1, sync: true }),
  );
  exits.use(log);
  warnOnOpenSeedFile(config, log);
  warnOnDefaultThreadpool(config, log);
  // Loaded after the config check, so a bad variable is reported even when probe code fails to load.
  const { startAgent } = await import("./agent.js");

  let agent: RunningAgent | undefined;
  let closeLink: (() => Promise<void>) | undefined;
  let flushLink: (() => Promise<void>) | undefined;
  let shuttingDown = false;
  installCrashGuard({
    log,
    agent: () => agent,
    flush: () => flushLink?.() ?? Promise.resolve(),
    exit: (code, reason) => exits.exit(code, reason),
  });

  const shutdown = async (signal: string) => {
    if (shuttingDown) {
      log.warn({ signal }, "second signal: exiting without waiting for running jobs");
      exits.exit(1, `second ${signal} while draining`);
    }
    shuttingDown = true;
    if (!agent) {
      log.info({ signal }, "stopping before the NATS connection was up");
      exits.exit(0, `${signal} before the NATS connection was up`);
    }
    log.info({ signal, running: agent.running() }, "stopping: refusing new jobs, finishing running ones");
    try {
      await agent.stop();
      // Draining waits for the server; when NATS is unreachable the jobs are done anyway.
      const closed = await Promise.race([
        (closeLink?.() ?? Promise.resolve()).then(() => true),
        new Promise<boolean>((r) => setTimeout(() => r(false), CLOSE_TIMEOUT_MS).unref()),
      ]);
      if (!closed) log.warn("NATS connection did not drain in time; exiting anyway");
      exits.exit(0, `${signal}: drained`);
    } catch (err) {
      log.error({ err }, "error while stopping");
      exits.exit(1, `${signal}: error while stopping`);
    }
  };
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
  process.on("SIGINT", () => void shutdown("SIGINT"));

  log.info(
    {
      node_id: config.VANTAGE_NODE_ID,
      version: AGENT_VERSION,
      servers: config.NATS_URL,
      uv_threadpool_size: effectiveThreadpoolSize(config),
    },
    "connecting to NATS (retries until the server answers)",
  );
  let authenticator: ReturnType<typeof nkeySeedAuthenticator> | undefined;
  // Results are signed with the NATS key itself (docs/verify.md): its public half is the node's identity.
  let signer: ResultSigner | undefined;
  if (config.NATS_NKEY_SEED_FILE) {
    try {
      const seed = readFileSync(config.NATS_NKEY_SEED_FILE, "utf8");
      authenticator = nkeySeedAuthenticator(seed);
      signer = resultSigner(parseUserSeed(seed).privateKey);
    } catch (err) {
      log.fatal(
        { file: config.NATS_NKEY_SEED_FILE, error: err instanceof Error ? err.message : String(err) },
        "NATS_NKEY_SEED_FILE holds no nkey user seed: copy the agent-<id>.nk file `pnpm agent:add` wrote",
      );
      exits.exit(2, "NATS_NKEY_SEED_FILE holds no nkey user seed");
    }
  }
  let nc: NatsConnection;
  try {
    nc = await connectNats({
      servers: config.NATS_URL,
      noRandomize: config.NATS_NO_RANDOMIZE,
      name: `vantage-agent-${config.VANTAGE_NODE_ID}`,
      // Signed with Node's own Ed25519 (nkey-auth.ts), not nats.js's pure-JS one: 9 MB less for good.
      authenticator,
      credsFile: config.NATS_CREDS_FILE,
      tlsCaFile: config.NATS_TLS_CA_FILE,
    });
  } catch (err) {
    // Unreachable servers are retried for ever; what ends up here is final, e.g. an unknown key. Refused
    // credentials exit 2, which the systemd unit does not restart: only an operator can fix them.
    log.fatal(
      { error: err instanceof Error ? `${err.name}: ${err.message}` : String(err) },
      "NATS refused the connection: check that the server's users file holds this agent's public key " +
        "(pnpm agent:add) and was reloaded",
    );
    exits.exit(isNatsAuthorizationError(err) ? 2 : 1, "NATS refused the connection");
  }
  log.info({ server: nc.getServer() }, "connected to NATS");
  // The start-up check subscribes here on purpose; the server's refusal is the good outcome, not an error.
  const probeSubject = authorizationProbeSubject();
  void (async () => {
    for await (const s of nc.status()) {
      // A close while stopping is the drain's own end, not news.
      if (s.type === "ping" || s.type === "reconnecting" || (s.type === "close" && shuttingDown))
        log.debug({ nats: s.type }, "nats status");
      else if (s.type === "error" && isAuthorizationProbeRefusal(s.error, probeSubject))
        log.debug({ nats: s.type, error: s.error.message }, "nats status: the permission check was refused");
      else if (s.type === "error") {
        log.error({ nats: s.type, error: s.error.message }, "nats status");
        if (isOwnJobSubscriptionRefused(s.error, config.VANTAGE_NODE_ID)) {
          // Nothing can reach this agent: the credentials belong to another node id. A configuration error.
          log.fatal(
            { node_id: config.VANTAGE_NODE_ID },
            "the NATS credentials may not receive this node's jobs: NATS_NKEY_SEED_FILE was created for " +
              "another VANTAGE_NODE_ID (pnpm agent:add <id>)",
          );
          exits.exit(2, "the NATS credentials may not receive this node's jobs");
        }
      } else if (s.type === "disconnect" || s.type === "staleConnection" || s.type === "slowConsumer")
        log.warn({ nats: s.type }, "nats status");
      else log.info({ nats: s.type }, "nats status");
    }
  })();
  void nc.closed().then((err) => {
    if (shuttingDown) return;
    if (isNatsAuthorizationError(err)) {
      // The server dropped this agent's key (pnpm agent:add --remove) or it expired: restarting cannot help.
      log.fatal(
        { error: err instanceof Error ? err.message : String(err) },
        "NATS no longer accepts this agent's credentials (revoked or expired): exiting for good (code 2)",
      );
      exits.exit(2, "NATS no longer accepts this agent's credentials");
    }
    log.fatal({ err }, "NATS connection closed for good; exiting so the supervisor restarts the agent");
    exits.exit(1, "NATS connection closed for good");
  });

  await requireEnforcedPermissions(nc, probeSubject, config, log);

  const link = natsAgentLink(nc);
  closeLink = () => link.close();
  flushLink = () => link.flush();
  signer ??= credsFileSigner(config.NATS_CREDS_FILE, log);
  agent = startAgent({ config, link, log, signer });
}

/**
 * Before serving, the agent makes sure the server would stop anyone else from receiving this node's jobs
 * or speaking as it: it subscribes to another node's job subject, which its credentials must not allow.
 * On a server that accepts it (no authorization, e.g. Debian's packaged default config, or credentials
 * far too broad) it exits 2 with one line, unless VANTAGE_ALLOW_OPEN_NATS=true (development) says to serve
 * anyway. A server that answers neither way in time is asked again, as the connection itself retries.
 */
async function requireEnforcedPermissions(
  nc: NatsConnection,
  probeSubject: string,
  config: AgentConfig,
  log: Logger,
): Promise<void> {
  const check = await checkAuthorizationUntilConclusive(nc, {
    probeSubject,
    onRetry: (c) =>
      log.warn({ detail: c.detail }, "could not check that NATS enforces permissions; trying again"),
  });
  if (check.enforced) {
    log.info(
      { subject: check.subject },
      "NATS enforces permissions: another node's jobs are refused to this agent",
    );
    return;
  }
  const line = "NATS server does not enforce permissions: any client could impersonate this node";
  if (config.VANTAGE_ALLOW_OPEN_NATS) {
    log.warn(
      { subject: probeSubject },
      `${line}; serving anyway because VANTAGE_ALLOW_OPEN_NATS=true (development only)`,
    );
    return;
  }
  log.fatal(
    { subject: probeSubject },
    `${line}; configure authorization (docs/operations.md) or set VANTAGE_ALLOW_OPEN_NATS=true for development`,
  );
  exits.exit(2, "NATS server does not enforce permissions");
}

function isOwnJobSubscriptionRefused(err: Error, nodeId: string): boolean {
  return (
    err instanceof errors.PermissionViolationError &&
    err.operation === "subscription" &&
    err.subject === subjects.job(nodeId)
  );
}

/**
 * The pool is sized before any of this code runs (see threadpool.cjs): all main.ts can do is say so when
 * the process was started without the preload and without the variable.
 */
function warnOnDefaultThreadpool(config: AgentConfig, log: Logger): void {
  if (config.UV_THREADPOOL_SIZE !== undefined && !sizedTooLateByBundle()) return;
  log.warn(
    { uv_threadpool_size: LIBUV_DEFAULT_THREADPOOL_SIZE },
    "libuv thread pool left at 4 threads: a few hanging name lookups stall all others; start the agent " +
      "with its preload, `node --require <dir>/threadpool.cjs <dir>/vantage-agent.mjs` (as `pnpm agent` " +
      "and the systemd units do), or set UV_THREADPOOL_SIZE in its environment (docs/operations.md)",
  );
}

/** The size libuv runs with: the variable, unless only the bundle set it and too late. */
function effectiveThreadpoolSize(config: AgentConfig): number {
  if (config.UV_THREADPOOL_SIZE === undefined || sizedTooLateByBundle()) return LIBUV_DEFAULT_THREADPOOL_SIZE;
  return config.UV_THREADPOOL_SIZE;
}

/**
 * The bundle's first lines run threadpool.cjs too (apps/agent/build.mjs). That is in time where Node reads
 * an ES module entry synchronously (measured: Node 24.21), too late where its loader reads it with the pool
 * (measured: Node 20.20, whose pool then already runs 4 threads); Node 22 is counted with 20, to be safe.
 */
function sizedTooLateByBundle(): boolean {
  const by = (globalThis as Record<symbol, unknown>)[Symbol.for("vantage.agent.threadpoolSizedBy")];
  return by === "bundle" && Number(process.versions.node.split(".")[0]) < 24;
}

function warnOnOpenSeedFile(config: AgentConfig, log: Logger): void {
  const file = config.NATS_NKEY_SEED_FILE ?? config.NATS_CREDS_FILE;
  if (!file) {
    log.warn("no NATS credentials configured: fine for a local server, never for production");
    return;
  }
  try {
    if ((statSync(file).mode & 0o077) !== 0) {
      log.warn({ file }, "credentials file is readable by group or others: chmod 600 it");
    }
  } catch {
    // loadConfig already checked it is readable
  }
}

main().catch((err: unknown) => {
  process.stderr.write(
    `vantage-agent: fatal: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
  );
  exits.exit(1, "fatal error at start");
});

/** The user seed of a `.creds` file (JWT auth), for signing results; none when absent or unreadable. */
function credsFileSigner(file: string | undefined, log: Logger): ResultSigner | undefined {
  if (!file) return undefined;
  try {
    const m = /-----BEGIN USER NKEY SEED-----\s+(SU[A-Z2-7]+)\s+/.exec(readFileSync(file, "utf8"));
    return m?.[1] ? resultSigner(parseUserSeed(m[1]).privateKey) : undefined;
  } catch (err) {
    log.warn(
      { error: err instanceof Error ? err.message : String(err) },
      "results unsigned: no seed in creds",
    );
    return undefined;
  }
}
