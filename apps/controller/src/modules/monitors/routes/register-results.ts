import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../../../http/context.js";
import { securedRoute } from "../../../http/route-kit.js";
import type { Router } from "../../../http/router.js";
import type { ApiForm } from "../../../http/security.js";
import type { MonitorResultsService } from "../results-service.js";
import { registerExport } from "./export.js";
import { registerGetResults } from "./get-results.js";
import { registerGetUptime } from "./get-uptime.js";

/**
 * A monitor's results, uptime and export, the same shape in both forms. `auth` is `requireAuth(authenticator)`
 * (with the read scope): both routes are GETs.
 */
export function registerMonitorResultRoutes(
  app: Router,
  svc: MonitorResultsService,
  auth: MiddlewareHandler<AppEnv>,
  form: ApiForm,
): void {
  const common = securedRoute("monitors", form, auth);
  registerGetResults(app, svc, common);
  registerGetUptime(app, svc, common);
  registerExport(app, svc, common);
}
