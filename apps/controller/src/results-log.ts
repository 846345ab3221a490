import { type connectNats, openResultsLog, type ResultsLog } from "@vantage/transport";
import type { Logger } from "pino";

/** How long the log keeps a record whatever happens: far beyond any controller's restart. */
const RESULTS_LOG_MAX_AGE_MS = 24 * 3600_000;

/**
 * The results write-ahead log (ADR 0012) when the NATS server has JetStream and the controller's user may
 * use it; else one line saying answered Form B tasks are written behind the answer without it (ADR 0005).
 */
export async function openResultsLogOrSay(
  nc: Awaited<ReturnType<typeof connectNats>>,
  controllerId: string,
  log: Logger,
): Promise<ResultsLog | undefined> {
  try {
    const opened = await openResultsLog(nc, {
      controllerId,
      maxAgeMs: RESULTS_LOG_MAX_AGE_MS,
      timeoutMs: 2000,
    });
    log.info("results write-ahead log on JetStream: answered Form B tasks survive a SIGKILL");
    return opened;
  } catch (err) {
    log.warn(
      { reason: (err as Error).message },
      "results are written behind the answer without a write-ahead log (no JetStream on the NATS server, or " +
        "the controller's NATS user predates it: `pnpm nats:controller-user --rotate`): a SIGKILL loses the " +
        "answers of the last writer cycle (docs/reliability.md)",
    );
    return undefined;
  }
}
