import {
  type ControllerTransport,
  connectNats,
  InProcessBus,
  natsControllerTransport,
} from "@vantage/transport";
import type { Logger } from "pino";
import { type App, createApp } from "./app.js";
import type { Config } from "./config.js";
import { connectDb, type Db, migrate } from "./db/connect.js";
import { HttpMetrics } from "./http/metrics.js";

/** Everything a running controller holds, with one stop function that releases it in reverse order. */
export interface Runtime extends App {
  config: Config;
  db: Db;
  transport: ControllerTransport;
  bus: InProcessBus | undefined;
  stop(): Promise<void>;
}

export async function startRuntime(config: Config, log: Logger): Promise<Runtime> {
  const db = await connectDb({ databaseUrl: config.DATABASE_URL, dataDir: config.VANTAGE_DATA_DIR });
  const applied = await migrate(db);
  log.info({ database: db.kind, applied }, "database ready");

  let transport: ControllerTransport;
  let bus: InProcessBus | undefined;
  if (config.NATS_URL) {
    const nc = await connectNats({
      servers: config.NATS_URL,
      name: "vantage-controller",
      nkeySeedFile: config.NATS_NKEY_SEED_FILE,
      credsFile: config.NATS_CREDS_FILE,
      onStatus: (s) => log.info({ nats: s.type }, "nats status"),
    });
    transport = natsControllerTransport(nc);
    log.info({ servers: config.NATS_URL }, "connected to NATS");
  } else {
    bus = new InProcessBus();
    transport = bus.controller();
    log.info("NATS_URL unset: using the in-process transport");
  }

  const metrics = new HttpMetrics();
  const built = createApp({ config, db, log, transport, metrics });

  return {
    ...built,
    config,
    db,
    transport,
    bus,
    async stop() {
      await transport.close();
      await db.close();
    },
  };
}
