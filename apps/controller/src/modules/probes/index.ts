import type { AppDeps } from "../../app.js";
import type { Router } from "../../http/router.js";
import { dbNodeDirectory } from "../nodes/index.js";
import type { BackgroundWork } from "./background.js";
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
export function registerProbes(app: Router, deps: AppDeps, background: BackgroundWork): void {
  registerProbeRoutes(
    app,
    {
      db: deps.db.kysely,
      transport: deps.transport,
      directory: deps.nodes ?? dbNodeDirectory(deps.db.kysely),
      background,
      writer: new ResultWriter(deps.db.kysely, background, deps.log),
      log: deps.log,
      defaultNodes: deps.config.VANTAGE_DEFAULT_NODES,
      offlineAfterMs: deps.config.VANTAGE_NODE_OFFLINE_AFTER_MS,
      allowPrivateTargets: deps.config.VANTAGE_ALLOW_PRIVATE_TARGETS,
    },
    deps.config.VANTAGE_API_FORM,
  );
}
