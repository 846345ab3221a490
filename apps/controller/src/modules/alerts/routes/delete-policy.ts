import { createRoute, z } from "@hono/zod-openapi";
import { requirePrincipal } from "../../../http/auth.js";
import { envelope, errorResponses, jsonContent, ok } from "../../../http/envelope.js";
import type { SecuredRoute } from "../../../http/route-kit.js";
import type { Router } from "../../../http/router.js";
import { policyIdParam } from "../schemas.js";
import type { AlertsService } from "../types.js";

/** `DELETE /v1/alert-policies/{id}`: the same contract in both forms. */
export function registerDeletePolicy(app: Router, api: AlertsService, common: SecuredRoute): void {
  const route = createRoute({
    ...common,
    method: "delete",
    path: "/v1/alert-policies/{id}",
    summary: "Delete an alert policy (irreversible)",
    description: "Its events and their deliveries go with it. Another account's id → 404.",
    request: { params: policyIdParam },
    responses: {
      200: { description: "Deleted", ...jsonContent(envelope(z.null())) },
      ...errorResponses(401, 403, 404),
    },
  });
  app.openapi(route, async (c) => {
    await api.removePolicy(requirePrincipal(c), c.req.valid("param").id);
    return ok(c, null, 200);
  });
}
