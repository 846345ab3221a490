import { createRoute, z } from "@hono/zod-openapi";
import { requirePrincipal } from "../../../http/auth.js";
import { envelope, errorResponses, jsonContent, ok } from "../../../http/envelope.js";
import type { SecuredRoute } from "../../../http/route-kit.js";
import type { Router } from "../../../http/router.js";
import { idParam } from "../schemas.js";
import type { MonitorCrudService } from "../service.js";

/** `DELETE /v1/monitors/{id}`: the same contract in both forms. */
export function registerDelete(app: Router, svc: MonitorCrudService, common: SecuredRoute): void {
  const route = createRoute({
    ...common,
    method: "delete",
    path: "/v1/monitors/{id}",
    summary: "Delete a monitor (irreversible)",
    description: "Its state history goes with it. Another account's id → 404.",
    request: { params: idParam },
    responses: {
      200: { description: "Deleted", ...jsonContent(envelope(z.null())) },
      ...errorResponses(401, 403, 404),
    },
  });
  app.openapi(route, async (c) => {
    await svc.remove(requirePrincipal(c), c.req.valid("param").id);
    return ok(c, null, 200);
  });
}
