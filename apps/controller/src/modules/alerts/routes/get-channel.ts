import { createRoute } from "@hono/zod-openapi";
import { requirePrincipal } from "../../../http/auth.js";
import { envelope, errorResponses, jsonContent, ok } from "../../../http/envelope.js";
import type { SecuredRoute } from "../../../http/route-kit.js";
import type { Router } from "../../../http/router.js";
import { channelSchema, idParam } from "../schemas.js";
import type { AlertsService } from "../types.js";
import { toChannelView } from "../views.js";

/** `GET /v1/alert-channels/{id}`: the same contract in both forms. */
export function registerGetChannel(app: Router, api: AlertsService, common: SecuredRoute): void {
  const route = createRoute({
    ...common,
    method: "get",
    path: "/v1/alert-channels/{id}",
    summary: "One of the caller's alert channels",
    description: "Secret settings show as `********`. Another account's id → 404, as an unknown one.",
    request: { params: idParam },
    responses: {
      200: { description: "Channel", ...jsonContent(envelope(channelSchema)) },
      ...errorResponses(401, 403, 404),
    },
  });
  app.openapi(route, async (c) => {
    const ch = await api.getChannel(requirePrincipal(c), c.req.valid("param").id);
    return ok(c, toChannelView(ch), 200);
  });
}
