import { ConfigError, loadConfig } from "../config.js";
import { createLogger } from "../logger.js";
import { connectDb, migrate } from "./connect.js";

/** `pnpm migrate`: runs pending migrations against the configured database and exits. */
try {
  const config = loadConfig();
  const log = createLogger(config.VANTAGE_LOG_LEVEL, "vantage-migrate");
  const db = await connectDb({
    databaseUrl: config.DATABASE_URL,
    dataDir: config.VANTAGE_DATA_DIR,
    pgliteCacheMb: config.VANTAGE_PGLITE_CACHE_MB,
  });
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
