import { ConfigError, loadConfig } from "../config.js";
import { createLogger } from "../logger.js";
import { configuredDb, connectDb, migrate } from "./connect.js";

/** `pnpm migrate`: runs pending migrations against the configured database and exits. */
try {
  const config = loadConfig();
  const log = createLogger(config.VANTAGE_LOG_LEVEL, "vantage-migrate");
  const db = await connectDb(configuredDb(config));
  const applied = await migrate(db);
  log.info(
    { database: db.kind, applied },
    applied.length ? "migrations applied" : "database already up to date",
  );
  await db.close();
} catch (err) {
  process.stderr.write(`vantage migrate: ${err instanceof ConfigError ? err.message : String(err)}\n`);
  process.exit(err instanceof ConfigError ? 2 : 1);
}
