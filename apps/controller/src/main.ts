import { createServer, type RequestListener, type Server, type ServerOptions } from "node:http";
import { serve } from "@hono/node-server";
import { type Config, ConfigError, loadConfig } from "./config.js";
import { guardServerEdges, originFormOnly } from "./http/server-edges.js";
import { createLogger, flushLogger } from "./logger.js";
import { startRuntime } from "./runtime.js";

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
  let runtime: Awaited<ReturnType<typeof startRuntime>>;
  try {
    runtime = await startRuntime(config, log);
  } catch (err) {
    if (err instanceof ConfigError) {
      log.fatal(err.message);
      flushLogger(log);
      process.stderr.write(`vantage: ${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }

  const server = serve(
    {
      fetch: runtime.app.fetch,
      hostname: config.HOST,
      port: config.PORT,
      // Node's own server, with requests whose target is not a path answered before Hono sees them.
      createServer: ((options: ServerOptions, listener: RequestListener) =>
        createServer(options, originFormOnly(listener))) as unknown as typeof createServer,
    },
    (info) => {
      const host = info.family === "IPv6" ? `[${info.address}]` : info.address;
      const url = `http://${host}:${info.port}`;
      log.info({ url, form: config.VANTAGE_API_FORM }, "listening");
      if (process.argv.includes("--embedded")) printWelcome(url, config);
    },
  );
  guardServerEdges(server as Server, log);

  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, "shutting down: draining in-flight requests");
    const force = setTimeout(() => {
      log.warn("grace period over: closing remaining connections");
      (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
    }, config.VANTAGE_SHUTDOWN_GRACE_MS);
    force.unref();
    // Keep-alive connections that finish their last response must not hold the exit back.
    const idle = setInterval(
      () => (server as unknown as { closeIdleConnections?: () => void }).closeIdleConnections?.(),
      100,
    );
    idle.unref();
    server.close(async () => {
      clearInterval(idle);
      clearTimeout(force);
      try {
        await runtime.stop();
        log.info("stopped");
        flushLogger(log);
        process.exit(0);
      } catch (err) {
        log.error({ err }, "error during shutdown");
        flushLogger(log);
        process.exit(1);
      }
    });
  };
  process.on("SIGTERM", () => shutdown("SIGTERM"));
  process.on("SIGINT", () => shutdown("SIGINT"));
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
