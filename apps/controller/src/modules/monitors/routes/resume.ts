import { createRoute } from "@hono/zod-openapi";
import { requirePrincipal } from "../../../http/auth.js";
import { envelope, errorResponses, jsonContent, ok } from "../../../http/envelope.js";
import type { SecuredRoute } from "../../../http/route-kit.js";
import type { Router } from "../../../http/router.js";
import { idParam, resumedResult } from "../schemas.js";
import type { MonitorCrudService } from "../service.js";

/** `POST /v1/monitors/{id}/resume`: the same contract in both forms. */
export function registerResume(app: Router, svc: MonitorCrudService, common: SecuredRoute): void {
  const route = createRoute({
    ...common,
    method: "post",
    path: "/v1/monitors/{id}/resume",
    summary: "Resume a paused monitor: it runs again from its next slot",
    description:
      "Runs missed while paused are not made up. Resuming an active monitor is a 200 that changes " +
      "nothing. Another account's id → 404.",
    request: { params: idParam },
    responses: {
      200: { description: "Active", ...jsonContent(envelope(resumedResult)) },
      ...errorResponses(401, 403, 404),
    },
  });
  app.openapi(route, async (c) => {
    const m = await svc.resume(requirePrincipal(c), c.req.valid("param").id);
    return ok(c, { id: m.id, status: "active" as const }, 200);
  });
}
