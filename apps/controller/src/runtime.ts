import {
  type ControllerTransport,
  connectNats,
  InProcessBus,
  isNatsAuthorizationError,
  natsControllerTransport,
} from "@vantage/transport";
import type { Logger } from "pino";
import { type App, createApp } from "./app.js";
import { type Config, ConfigError } from "./config.js";
import { connectDb, type Db, migrate } from "./db/connect.js";
import { HttpMetrics } from "./http/metrics.js";
import { createMailTransport, startMailWorker } from "./mail/index.js";
import { resolveJwtSecret } from "./modules/accounts/index.js";
import { type Presence, startPresence } from "./modules/nodes/index.js";
import { startTaskSweeper } from "./modules/probes/index.js";

/** Everything a running controller holds, with one stop function that releases it in reverse order. */
export interface Runtime extends App {
  config: Config;
  db: Db;
  transport: ControllerTransport;
  bus: InProcessBus | undefined;
  presence: Presence | undefined;
  stop(): Promise<void>;
}

export async function startRuntime(config: Config, log: Logger): Promise<Runtime> {
  const jwtSecret = resolveJwtSecret(
    {
      secret: config.VANTAGE_JWT_SECRET,
      dataDir: config.VANTAGE_DATA_DIR,
      distributed: !!config.DATABASE_URL,
    },
    log,
  );
  config = { ...config, VANTAGE_JWT_SECRET: jwtSecret };
  const db = await connectDb({ databaseUrl: config.DATABASE_URL, dataDir: config.VANTAGE_DATA_DIR });
  const applied = await migrate(db);
  log.info({ database: db.kind, applied }, "database ready");

  let transport: ControllerTransport;
  let bus: InProcessBus | undefined;
  if (config.NATS_URL) {
    log.info({ servers: config.NATS_URL }, "connecting to NATS (retries until the server answers)");
    let nc: Awaited<ReturnType<typeof connectNats>>;
    try {
      nc = await connectNats({
        servers: config.NATS_URL,
        name: "vantage-controller",
        nkeySeedFile: config.NATS_NKEY_SEED_FILE,
        credsFile: config.NATS_CREDS_FILE,
        tlsCaFile: config.NATS_TLS_CA_FILE,
        onStatus: (s) => logNatsStatus(log, s.type),
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
    transport = natsControllerTransport(nc);
    log.info({ servers: config.NATS_URL }, "connected to NATS");
  } else {
    bus = new InProcessBus();
    transport = bus.controller();
    log.info("NATS_URL unset: using the in-process transport");
  }

  const presence = config.VANTAGE_ROLES.includes("presence")
    ? startPresence({ db: db.kysely, transport, log, offlineAfterMs: config.VANTAGE_NODE_OFFLINE_AFTER_MS })
    : undefined;
  await presence?.ready;

  // The mail outbox (verification messages): SMTP with SMTP_URL, else logged.
  const mailWorker = config.VANTAGE_ROLES.includes("notifier")
    ? startMailWorker({
        db: db.kysely,
        transport: createMailTransport({ smtpUrl: config.SMTP_URL, from: config.SMTP_FROM, log }),
        log,
      })
    : undefined;

  // Probe tasks a stopped controller left unfinished become `failed`.
  const sweeper = config.VANTAGE_ROLES.includes("scheduler")
    ? startTaskSweeper({ db: db.kysely, log })
    : undefined;

  const metrics = new HttpMetrics();
  const built = createApp({ config, db, log, transport, metrics, nodes: presence });

  // Embedded mode: one agent inside this process, so every probe type works with nothing else running.
  const localAgent = bus ? await startLocalAgent(bus, config, log) : undefined;

  return {
    ...built,
    config,
    db,
    transport,
    bus,
    presence,
    async stop() {
      await built.drain();
      await localAgent?.stop();
      await presence?.stop();
      await mailWorker?.stop();
      await sweeper?.stop();
      await transport.close();
      await db.close();
    },
  };
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
 * cannot know where it runs), region and provider `local`; it follows VANTAGE_ALLOW_PRIVATE_TARGETS. The agent
 * code is loaded only here, so a controller in distributed mode never loads probe code.
 */
async function startLocalAgent(
  bus: InProcessBus,
  config: Config,
  log: Logger,
): Promise<{ stop(): Promise<void> }> {
  const { startAgent } = await import("@vantage/agent");
  const agent = startAgent({
    config: {
      VANTAGE_NODE_ID: "local",
      VANTAGE_NODE_NAME: "Local node",
      VANTAGE_NODE_COUNTRY: "ZZ",
      VANTAGE_NODE_REGION: "local",
      VANTAGE_NODE_PROVIDER: "local",
      VANTAGE_AGENT_CONCURRENCY: 64,
      VANTAGE_HEARTBEAT_MS: 5000,
      VANTAGE_ALLOW_PRIVATE_TARGETS: config.VANTAGE_ALLOW_PRIVATE_TARGETS,
    },
    link: bus.agent(),
    log,
  });
  // The first heartbeat travels on a microtask; let it land so the node is selectable at once.
  await new Promise((r) => setImmediate(r));
  log.info('embedded mode: local agent "local" serving probes in-process');
  return agent;
}
