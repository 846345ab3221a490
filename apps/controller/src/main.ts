import { type Config, ConfigError, loadConfig } from "./config.js";
import { createLogger, flushLogger } from "./logger.js";
import { type Runtime, StartupError, startRuntime } from "./runtime.js";
import { installUncaughtHandler } from "./uncaught.js";

async function main(): Promise<void> {
  let config: Config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`vantage: ${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
  const log = createLogger(config.VANTAGE_LOG_LEVEL);
  // A SIGTERM or SIGINT while the runtime starts (its port may already be open, and a service manager may
  // stop it at any time) is kept and acted on once the start is done; without a handler Node would end the
  // process on the spot. A start that does not finish within 10 s of the signal is left (exit 0).
  let early: string | undefined;
  let giveUp: NodeJS.Timeout | undefined;
  let onSignal = (signal: string) => {
    if (early) return;
    early = signal;
    log.info({ signal }, "signal during start-up: stopping once started");
    giveUp = setTimeout(() => {
      flushLogger(log);
      process.exit(0);
    }, 10_000).unref();
  };
  process.on("SIGTERM", () => onSignal("SIGTERM"));
  process.on("SIGINT", () => onSignal("SIGINT"));
  let runtime: Runtime;
  try {
    runtime = await startRuntime(config, log);
  } catch (err) {
    if (err instanceof ConfigError) {
      log.fatal(err.message);
      flushLogger(log);
      process.stderr.write(`vantage: ${err.message}\n`);
      process.exit(2);
    }
    if (err instanceof StartupError) {
      log.fatal(err.message);
      flushLogger(log);
      process.stderr.write(`vantage: failed to start: ${err.message}\n`);
      process.exit(1);
    }
    throw err;
  }
  // From here on an error that escapes a lookup's socket callback is logged and survived (uncaught.ts).
  installUncaughtHandler({
    log,
    registry: runtime.metrics.registry,
    exit: (code) => {
      flushLogger(log);
      process.exit(code);
    },
  });
  if (runtime.url && process.argv.includes("--embedded")) printWelcome(runtime.url, config);

  // A controller without the api role has no server to keep the process alive; its roles' timers are
  // unref'd, so this one holds it until a signal.
  const alive = setInterval(() => {}, 1 << 30);

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, "shutting down: draining in-flight requests");
    try {
      await runtime.stop();
      clearInterval(alive);
      log.info("stopped");
      flushLogger(log);
      process.exit(0);
    } catch (err) {
      log.error({ err }, "error during shutdown");
      flushLogger(log);
      process.exit(1);
    }
  };
  // SIGHUP: the IP and reputation data are read again (VANTAGE_IP_DATA_DIR, VANTAGE_REPUTATION_DATA_DIR,
  // else the shipped files) on a worker thread and each swapped in whole once loaded; bad files leave the
  // old data answering. Each reload logs its own outcome, a failure with its reason, once.
  const { ipData, reputationData } = runtime.modules.lookups.service;
  process.on("SIGHUP", () => {
    log.info("SIGHUP: reloading the IP and reputation data");
    ipData.reload().catch(() => {});
    reputationData.reload().catch(() => {});
  });
  onSignal = (signal) => void shutdown(signal);
  clearTimeout(giveUp);
  if (early) void shutdown(early);
}

function printWelcome(url: string, config: Config): void {
  const probe =
    config.VANTAGE_API_FORM === "a"
      ? `curl -s -X POST ${url}/v1/probe/tcp -H 'content-type: application/json' -d '{"target":"example.com:443"}'`
      : `curl -s -X POST ${url}/v1/probe/tcp -H 'content-type: application/json' -d '{"host":"example.com","port":443}'`;
  const lines = [
    "",
    `  Vantage is running (API form ${config.VANTAGE_API_FORM.toUpperCase()}) at ${url}`,
    `  API docs:  ${url}/docs      OpenAPI: ${url}/v1/openapi.json`,
    "",
    "  Try:",
    `    ${probe}`,
    `    curl -s '${url}/v1/info/ip?${config.VANTAGE_API_FORM === "a" ? "q" : "ip"}=8.8.8.8'`,
    `    curl -s ${url}/v1/nodes`,
    `    curl -s -X POST ${url}/v1/auth/register -H 'content-type: application/json' -d '{"email":"you@example.com","password":"correct horse"}'`,
    "",
  ];
  process.stdout.write(`${lines.join("\n")}\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(
    `vantage: failed to start: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
  );
  process.exit(1);
});
