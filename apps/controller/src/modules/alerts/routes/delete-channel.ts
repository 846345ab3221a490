import { createRoute, z } from "@hono/zod-openapi";
import { requirePrincipal } from "../../../http/auth.js";
import { envelope, errorResponses, jsonContent, ok } from "../../../http/envelope.js";
import type { SecuredRoute } from "../../../http/route-kit.js";
import type { Router } from "../../../http/router.js";
import { idParam } from "../schemas.js";
import type { AlertsService } from "../types.js";

/** `DELETE /v1/alert-channels/{id}`: the same contract in both forms. */
export function registerDeleteChannel(app: Router, api: AlertsService, common: SecuredRoute): void {
  const route = createRoute({
    ...common,
    method: "delete",
    path: "/v1/alert-channels/{id}",
    summary: "Delete an alert channel (irreversible)",
    description:
      "It leaves every policy that named it; its deliveries not yet sent fail. Another account's id → 404.",
    request: { params: idParam },
    responses: {
      200: { description: "Deleted", ...jsonContent(envelope(z.null())) },
      ...errorResponses(401, 403, 404),
    },
  });
  app.openapi(route, async (c) => {
    await api.removeChannel(requirePrincipal(c), c.req.valid("param").id);
    return ok(c, null, 200);
  });
}
