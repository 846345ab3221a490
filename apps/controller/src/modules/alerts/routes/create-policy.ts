import { createRoute } from "@hono/zod-openapi";
import { requirePrincipal } from "../../../http/auth.js";
import { envelope, errorResponses, jsonBody, jsonContent, ok } from "../../../http/envelope.js";
import type { SecuredRoute } from "../../../http/route-kit.js";
import type { Router } from "../../../http/router.js";
import { policyCreateBody, policySchema } from "../schemas.js";
import type { AlertsService } from "../types.js";
import { toPolicyView } from "../views.js";

/** `POST /v1/alert-policies`: the same contract in both forms. */
export function registerCreatePolicy(app: Router, api: AlertsService, common: SecuredRoute): void {
  const route = createRoute({
    ...common,
    method: "post",
    path: "/v1/alert-policies",
    summary: "Create an alert policy: which channels hear about which monitor",
    description:
      "A monitor or channel that is not the caller's (or does not exist) → 404 `not_found`, `details[].path` " +
      'naming it (`body.monitor_id`, `body.channel_ids.<i>`). `scope: "all"` (a Vantage extension) makes a ' +
      "policy for every monitor of the caller, those created later included; `monitor_id` is then refused, " +
      "and required otherwise (400 `validation_error`).",
    request: jsonBody(policyCreateBody),
    responses: {
      201: { description: "Policy created", ...jsonContent(envelope(policySchema)) },
      ...errorResponses(400, 401, 403, 404),
    },
  });
  app.openapi(route, async (c) => {
    const b = c.req.valid("json");
    const p = await api.createPolicy(requirePrincipal(c), {
      name: b.name,
      scope: b.scope ?? "monitor",
      monitorId: b.monitor_id,
      channelIds: b.channel_ids,
      onDown: b.on_down,
      onUp: b.on_up,
      reminderMinutes: b.reminder_minutes,
      escalation: b.escalation,
    });
    return ok(c, toPolicyView(p), 201);
  });
}
