import { createRoute } from "@hono/zod-openapi";
import { requirePrincipal } from "../../../http/auth.js";
import { envelope, errorResponses, jsonBody, jsonContent, ok } from "../../../http/envelope.js";
import type { SecuredRoute } from "../../../http/route-kit.js";
import type { Router } from "../../../http/router.js";
import { channelPatchBody, channelSchema, idParam } from "../schemas.js";
import type { AlertsService } from "../types.js";
import { toChannelView } from "../views.js";

/** `PATCH /v1/alert-channels/{id}`: the same contract in both forms. */
export function registerUpdateChannel(app: Router, api: AlertsService, common: SecuredRoute): void {
  const route = createRoute({
    ...common,
    method: "patch",
    path: "/v1/alert-channels/{id}",
    summary: "Rename a channel or change its settings; answers with the whole channel",
    description:
      "`config` is merged key by key; a secret sent back as `********` keeps its stored value. A change of " +
      "settings that needs the stored secrets without `VANTAGE_SECRET_KEY` → 503 `unavailable`; stored " +
      "secrets that no longer open (the key was replaced) → 409 `conflict`: send them again. Another " +
      "account's id → 404. A URL setting written with a private address → 422 `target_not_allowed`, as " +
      "on creation.",
    request: { params: idParam, ...jsonBody(channelPatchBody) },
    responses: {
      200: { description: "Updated channel", ...jsonContent(envelope(channelSchema)) },
      ...errorResponses(400, 401, 403, 404, 409, 422, 503),
    },
  });
  app.openapi(route, async (c) => {
    const b = c.req.valid("json");
    const ch = await api.updateChannel(requirePrincipal(c), c.req.valid("param").id, {
      name: b.name,
      config: b.config,
    });
    return ok(c, toChannelView(ch), 200);
  });
}
