import { createRoute } from "@hono/zod-openapi";
import { requirePrincipal } from "../../../http/auth.js";
import { envelope, errorResponses, jsonContent, ok } from "../../../http/envelope.js";
import type { SecuredRoute } from "../../../http/route-kit.js";
import type { Router } from "../../../http/router.js";
import { eventIdParam, eventWithDeliveries } from "../schemas.js";
import type { AlertsService } from "../types.js";
import { toDeliveryView, toEventView } from "../views.js";

/** `GET /v1/alert-events/{id}`: the same contract in both forms. */
export function registerGetEvent(app: Router, api: AlertsService, common: SecuredRoute): void {
  const route = createRoute({
    ...common,
    method: "get",
    path: "/v1/alert-events/{id}",
    summary: "One alert event with its deliveries",
    description:
      "One delivery per channel the policy named when the event was made, by channel id, each with every " +
      "attempt in `log`. Another account's id → 404, as an unknown one.",
    request: { params: eventIdParam },
    responses: {
      200: { description: "Event", ...jsonContent(envelope(eventWithDeliveries)) },
      ...errorResponses(401, 403, 404),
    },
  });
  app.openapi(route, async (c) => {
    const e = await api.getEvent(requirePrincipal(c), c.req.valid("param").id);
    return ok(c, { ...toEventView(e), deliveries: e.deliveries.map(toDeliveryView) }, 200);
  });
}
