import type { AppDeps } from "../../app.js";
import { syncedRateLimitStore } from "../../http/rate-limit.js";
import type { Router } from "../../http/router.js";
import { dbNodeDirectory } from "../nodes/index.js";
import type { BackgroundWork } from "./background.js";
import { ProbeQuota } from "./quota.js";
import { ResultWriter } from "./result-writer.js";
import { registerProbeRoutes } from "./routes.js";

export { BackgroundWork } from "./background.js";
export { DISPATCH_GRACE_MS, dispatchTimeoutMs, probeBudgetMs } from "./deadlines.js";
export { MAX_NODE_IDS } from "./select-nodes.js";
export { ABANDONED_AFTER_MS, startTaskSweeper, type TaskSweeper } from "./sweeper.js";

/**
 * Probe routes of the active form. Nodes come from `deps.nodes` (the presence role's in-memory directory)
 * or, on a controller without that role, from the `nodes` table. Form A's background dispatches run on
 * `background`, which the composition root drains on shutdown; so do Form B's result writes.
 */
export function registerProbes(
  app: Router,
  deps: AppDeps,
  background: BackgroundWork,
): { drain(): Promise<void> } {
  const counters = syncedRateLimitStore(deps.db.kysely, {
    onError: (err) => deps.log.warn({ err }, "probe quota counters not shared yet; retrying"),
  });
  registerProbeRoutes(
    app,
    {
      db: deps.db.kysely,
      transport: deps.transport,
      directory: deps.nodes ?? dbNodeDirectory(deps.db.kysely),
      background,
      writer: new ResultWriter(deps.db.kysely, background, deps.log),
      quota: new ProbeQuota(counters, {
        anon: deps.config.VANTAGE_PROBE_LIMIT_ANON,
        auth: deps.config.VANTAGE_PROBE_LIMIT_AUTH,
      }),
      log: deps.log,
      defaultNodes: deps.config.VANTAGE_DEFAULT_NODES,
      offlineAfterMs: deps.config.VANTAGE_NODE_OFFLINE_AFTER_MS,
      allowPrivateTargets: deps.config.VANTAGE_ALLOW_PRIVATE_TARGETS,
    },
    deps,
    deps.config.VANTAGE_API_FORM,
  );
  // Form A dispatches and Form B writes first, then the last quota counts.
  return {
    async drain() {
      await background.drain();
      await counters.stop();
    },
  };
}
