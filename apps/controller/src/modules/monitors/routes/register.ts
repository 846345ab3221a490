import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../../../http/context.js";
import { securedRoute } from "../../../http/route-kit.js";
import type { Router } from "../../../http/router.js";
import type { ApiForm } from "../../../http/security.js";
import type { MonitorCrudService } from "../service.js";
import { registerCreate } from "./create.js";
import { registerDelete } from "./delete.js";
import { registerGet } from "./get.js";
import { registerList } from "./list.js";
import { registerPause } from "./pause.js";
import { registerResume } from "./resume.js";
import { registerUpdate } from "./update.js";

/**
 * The monitor CRUD routes of the active form: list, create, get, update, delete, pause, resume. `auth` is
 * `requireAuth(authenticator)`: the read scope for GET, the write scope for the rest.
 */
export function registerMonitorCrudRoutes(
  app: Router,
  svc: MonitorCrudService,
  auth: MiddlewareHandler<AppEnv>,
  form: ApiForm,
): void {
  const common = securedRoute("monitors", form, auth);
  registerList(app, svc, common);
  registerCreate(app, svc, common);
  registerGet(app, svc, common);
  registerUpdate(app, svc, common);
  registerDelete(app, svc, common);
  registerPause(app, svc, common);
  registerResume(app, svc, common);
}
