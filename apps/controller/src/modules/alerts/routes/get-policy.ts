import { createRoute } from "@hono/zod-openapi";
import { requirePrincipal } from "../../../http/auth.js";
import { envelope, errorResponses, jsonContent, ok } from "../../../http/envelope.js";
import type { SecuredRoute } from "../../../http/route-kit.js";
import type { Router } from "../../../http/router.js";
import { policyIdParam, policySchema } from "../schemas.js";
import type { AlertsService } from "../types.js";
import { toPolicyView } from "../views.js";

/** `GET /v1/alert-policies/{id}`: the same contract in both forms. */
export function registerGetPolicy(app: Router, api: AlertsService, common: SecuredRoute): void {
  const route = createRoute({
    ...common,
    method: "get",
    path: "/v1/alert-policies/{id}",
    summary: "One of the caller's alert policies",
    description: "Another account's id → 404, as an unknown one.",
    request: { params: policyIdParam },
    responses: {
      200: { description: "Policy", ...jsonContent(envelope(policySchema)) },
      ...errorResponses(401, 403, 404),
    },
  });
  app.openapi(route, async (c) => {
    const p = await api.getPolicy(requirePrincipal(c), c.req.valid("param").id);
    return ok(c, toPolicyView(p), 200);
  });
}
