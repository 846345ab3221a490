import type { Logger } from "pino";
import type { RunningAgent } from "./agent.js";

/** Exit code of an agent that an uncaught error ended (sysexits' EX_SOFTWARE); systemd restarts it. */
export const CRASH_EXIT_CODE = 70;
const DEFAULT_FLUSH_TIMEOUT_MS = 1000;

export interface CrashGuardOptions {
  log: Logger;
  /** The running agent, once there is one. */
  agent: () => RunningAgent | undefined;
  /** Resolves once what the link has sent so far has left (the crash notice); bounded by the guard. */
  flush: () => Promise<void>;
  /** Ends the process (`process.exit` in the agent; tests pass their own). */
  exit: (code: number, reason: string) => void;
  flushTimeoutMs?: number;
}

/**
 * Per-job failures that escape everything else (an error thrown from a probe's callback, a rejected promise
 * nobody awaited) end the agent, but not silently and not at the cost of the controller's callers: the
 * error is logged with the jobs in flight, the controller is told (the crash notice: a last heartbeat
 * listing them, so it answers them at once with `node_error` and holds back their probes), and the process
 * exits with CRASH_EXIT_CODE once the notice is out (at most `flushTimeoutMs` later). Continuing would run
 * on in an unknown state; the service manager (systemd, or the embedded controller's supervisor) restarts it.
 * Returns the function that removes the handlers.
 */
export function installCrashGuard(opts: CrashGuardOptions): () => void {
  let crashing = false;
  const onError = (kind: "uncaughtException" | "unhandledRejection") => (err: unknown) => {
    if (crashing) {
      opts.log.error({ err, kind }, "another uncaught error while exiting after a crash");
      return;
    }
    crashing = true;
    const agent = opts.agent();
    const jobs = agent?.inflightJobs() ?? [];
    opts.log.fatal(
      { err, kind, crashed_jobs: jobs },
      `uncaught error (${kind}) with ${jobs.length} job(s) in flight: telling the controller, then exiting ` +
        `with code ${CRASH_EXIT_CODE}`,
    );
    try {
      agent?.reportCrash(jobs);
    } catch (notSent) {
      opts.log.error({ err: notSent }, "crash notice not sent");
    }
    const timeout = opts.flushTimeoutMs ?? DEFAULT_FLUSH_TIMEOUT_MS;
    let timer: NodeJS.Timeout | undefined;
    void Promise.race([
      opts.flush().catch(() => {}),
      new Promise<void>((r) => {
        timer = setTimeout(r, timeout);
      }),
    ]).then(() => {
      clearTimeout(timer);
      opts.exit(CRASH_EXIT_CODE, `uncaught error (${kind})`);
    });
  };
  const onException = onError("uncaughtException");
  const onRejection = onError("unhandledRejection");
  process.on("uncaughtException", onException);
  process.on("unhandledRejection", onRejection);
  return () => {
    process.off("uncaughtException", onException);
    process.off("unhandledRejection", onRejection);
  };
}
