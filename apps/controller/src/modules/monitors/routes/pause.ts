import { createRoute } from "@hono/zod-openapi";
import { requirePrincipal } from "../../../http/auth.js";
import { envelope, errorResponses, jsonContent, ok } from "../../../http/envelope.js";
import type { SecuredRoute } from "../../../http/route-kit.js";
import type { Router } from "../../../http/router.js";
import { idParam, pausedResult } from "../schemas.js";
import type { MonitorCrudService } from "../service.js";

/** `POST /v1/monitors/{id}/pause`: the same contract in both forms. */
export function registerPause(app: Router, svc: MonitorCrudService, common: SecuredRoute): void {
  const route = createRoute({
    ...common,
    method: "post",
    path: "/v1/monitors/{id}/pause",
    summary: "Pause a monitor: its runs stop",
    description: "Pausing a paused monitor is a 200 that changes nothing. Another account's id → 404.",
    request: { params: idParam },
    responses: {
      200: { description: "Paused", ...jsonContent(envelope(pausedResult)) },
      ...errorResponses(401, 403, 404),
    },
  });
  app.openapi(route, async (c) => {
    const m = await svc.pause(requirePrincipal(c), c.req.valid("param").id);
    return ok(c, { id: m.id, status: "paused" as const }, 200);
  });
}
