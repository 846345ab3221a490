import { type Config, loadConfig } from "../config.js";
import { createLogger } from "../logger.js";
import { type Runtime, startRuntime } from "../runtime.js";
import { lendPgliteDb } from "./pglite-pool.js";
import { planLimitsEnv } from "./plan-limits.js";

/**
 * The configuration of an embedded runtime a test starts with every role: loopback on a free port, silent,
 * loopback targets allowed (the tests' sites and hooks), a 100 ms scheduler tick and monitors down to 1 s.
 * `env` adds to it or overrides it.
 */
export function embeddedTestConfig(dataDir: string, env: Record<string, string> = {}): Config {
  return loadConfig({
    PORT: "0",
    HOST: "127.0.0.1",
    VANTAGE_DATA_DIR: dataDir,
    VANTAGE_LOG_LEVEL: "silent",
    VANTAGE_ACCESS_LOG: "false",
    VANTAGE_ALLOW_PRIVATE_TARGETS: "true",
    VANTAGE_SCHEDULER_TICK_MS: "100",
    VANTAGE_PLAN_LIMITS: planLimitsEnv({ free: { min_monitor_interval_s: 1 } }),
    ...env,
  });
}

/** `startRuntime` on `embeddedTestConfig`, on a database lent from the worker's pool (its `stop` gives it back). */
export async function startEmbeddedTestRuntime(
  dataDir: string,
  env: Record<string, string> = {},
  opts: { embeddedProbeModule?: string } = {},
): Promise<Runtime> {
  return startRuntime(embeddedTestConfig(dataDir, env), createLogger("silent"), {
    db: (await lendPgliteDb()).db,
    ...opts,
  });
}
