import type { Logger } from "pino";
import type { Registry } from "prom-client";
import { counterOn } from "./http/metrics.js";

/** Exit code of a controller that kept failing outside any request (sysexits' EX_SOFTWARE). */
export const UNCAUGHT_EXIT_CODE = 70;

export interface UncaughtOptions {
  log: Logger;
  registry: Registry;
  /** More than this many uncaught errors within `windowMs` end the process: something is broken for good. */
  limit?: number;
  windowMs?: number;
  /** Ends the process (`process.exit` in main; tests pass their own). */
  exit?: (code: number) => void;
  now?: () => number;
}

/**
 * The controller's last line of containment. Probes run in the agent's process, but lookups (DNS, WHOIS,
 * RDAP, TLS) open sockets in this one, and an error that escapes a socket callback would end every
 * caller's service with it (issue #26: one DNS lookup in a network without a route did). Such an error is
 * logged with its stack, counted (`vantage_uncaught_errors_total`) and survived: the request that met it
 * ends at its own deadline, every other request goes on. An error that escapes keeps its bug: the log line
 * says so, the metric can alert. A controller that meets more than `limit` of them within `windowMs` is
 * failing for good and exits with UNCAUGHT_EXIT_CODE, for its service manager to restart.
 * Returns the handler, for tests; `install` puts it on the process.
 */
export function uncaughtHandler(opts: UncaughtOptions) {
  const limit = opts.limit ?? 20;
  const windowMs = opts.windowMs ?? 60_000;
  const now = opts.now ?? Date.now;
  const exit = opts.exit ?? ((code: number) => process.exit(code));
  const counter = counterOn(
    opts.registry,
    "vantage_uncaught_errors_total",
    "Errors that escaped every handler in the controller and were survived, by kind",
    ["kind"],
  );
  const recent: number[] = [];
  return (err: unknown, kind: "uncaughtException" | "unhandledRejection") => {
    counter.inc({ kind });
    const t = now();
    recent.push(t);
    while (recent.length > 0 && (recent[0] ?? t) <= t - windowMs) recent.shift();
    if (recent.length > limit) {
      opts.log.fatal(
        { err, kind, within_ms: windowMs, count: recent.length },
        `${recent.length} uncaught errors within ${windowMs / 1000} s: exiting with code ${UNCAUGHT_EXIT_CODE}`,
      );
      exit(UNCAUGHT_EXIT_CODE);
      return;
    }
    opts.log.error({ err, kind }, `uncaught error (${kind}) contained: the service goes on; this is a bug`);
  };
}

/** Puts the handler on the process; returns the function that takes it off. */
export function installUncaughtHandler(opts: UncaughtOptions): () => void {
  const handle = uncaughtHandler(opts);
  const onException = (err: unknown) => handle(err, "uncaughtException");
  const onRejection = (err: unknown) => handle(err, "unhandledRejection");
  process.on("uncaughtException", onException);
  process.on("unhandledRejection", onRejection);
  return () => {
    process.off("uncaughtException", onException);
    process.off("unhandledRejection", onRejection);
  };
}
