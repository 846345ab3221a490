import { createRoute } from "@hono/zod-openapi";
import { requirePrincipal } from "../../../http/auth.js";
import { envelope, errorResponses, jsonBody, jsonContent, ok } from "../../../http/envelope.js";
import type { SecuredRoute } from "../../../http/route-kit.js";
import type { Router } from "../../../http/router.js";
import { policyIdParam, policyPatchBody, policySchema } from "../schemas.js";
import type { AlertsService } from "../types.js";
import { toPolicyView } from "../views.js";

/** `PATCH /v1/alert-policies/{id}`: the same contract in both forms. */
export function registerUpdatePolicy(app: Router, api: AlertsService, common: SecuredRoute): void {
  const route = createRoute({
    ...common,
    method: "patch",
    path: "/v1/alert-policies/{id}",
    summary: "Change a policy's name, channels, triggers or reminders; answers with the whole policy",
    description:
      "The monitor cannot change (create another policy). `channel_ids` replaces the list; a channel that is " +
      "not the caller's → 404 on `body.channel_ids.<i>`. Another account's id → 404.",
    request: { params: policyIdParam, ...jsonBody(policyPatchBody) },
    responses: {
      200: { description: "Updated policy", ...jsonContent(envelope(policySchema)) },
      ...errorResponses(400, 401, 403, 404),
    },
  });
  app.openapi(route, async (c) => {
    const b = c.req.valid("json");
    const p = await api.updatePolicy(requirePrincipal(c), c.req.valid("param").id, {
      name: b.name,
      channelIds: b.channel_ids,
      onDown: b.on_down,
      onUp: b.on_up,
      reminderMinutes: b.reminder_minutes,
      escalation: b.escalation,
    });
    return ok(c, toPolicyView(p), 200);
  });
}
