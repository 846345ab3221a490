import { createRoute } from "@hono/zod-openapi";
import { requirePrincipal } from "../../../http/auth.js";
import { envelope, errorResponses, jsonContent, ok } from "../../../http/envelope.js";
import type { SecuredRoute } from "../../../http/route-kit.js";
import type { Router } from "../../../http/router.js";
import { idParam, monitorA, monitorB } from "../schemas.js";
import type { MonitorCrudService } from "../service.js";
import { toMonitorA, toMonitorB } from "../views.js";

const getRoute = (common: SecuredRoute) =>
  createRoute({
    ...common,
    method: "get",
    path: "/v1/monitors/{id}",
    summary: "One of the caller's monitors",
    description: "Another account's id → 404, as an unknown one.",
    request: { params: idParam },
    responses: {
      200: { description: "Monitor", ...jsonContent(envelope(common.form === "a" ? monitorA : monitorB)) },
      ...errorResponses(401, 403, 404),
    },
  });

/** `GET /v1/monitors/{id}`. */
export function registerGet(app: Router, svc: MonitorCrudService, common: SecuredRoute): void {
  const { form } = common;
  const view = form === "a" ? toMonitorA : toMonitorB;
  app.openapi(getRoute(common), async (c) => {
    const m = await svc.get(requirePrincipal(c), c.req.valid("param").id);
    return ok(c, view(m), 200);
  });
}
