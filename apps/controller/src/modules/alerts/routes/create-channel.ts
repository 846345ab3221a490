import { createRoute } from "@hono/zod-openapi";
import { requirePrincipal } from "../../../http/auth.js";
import { envelope, errorResponses, jsonBody, jsonContent, ok } from "../../../http/envelope.js";
import type { SecuredRoute } from "../../../http/route-kit.js";
import type { Router } from "../../../http/router.js";
import { channelCreateBody, createdChannelSchema } from "../schemas.js";
import type { AlertsService } from "../types.js";
import { toChannelView } from "../views.js";

/** `POST /v1/alert-channels`: the same contract in both forms. */
export function registerCreateChannel(app: Router, api: AlertsService, common: SecuredRoute): void {
  const route = createRoute({
    ...common,
    method: "post",
    path: "/v1/alert-channels",
    summary: "Create an alert channel",
    description:
      "`config` is checked by the type's schema (400 on `body.config.<key>`). Secret settings (tokens, " +
      "signing keys, webhook URLs that are credentials) are sealed at rest and answered as `********`, here " +
      "and everywhere after. Without `VANTAGE_SECRET_KEY` a channel with secrets → 503 `unavailable`. More " +
      "channels than the plan allows (free 3, pro 20, business 100) → 409 `conflict` with `{limit, plan}`. " +
      "A webhook channel without `config.secret` gets a generated `whsec_` signing secret, answered once in " +
      "`generated.secret`. A URL setting whose host is written as a private, loopback, link-local or " +
      "reserved address (or `localhost`) → 422 `target_not_allowed` unless `VANTAGE_ALLOW_PRIVATE_TARGETS`; " +
      "a name is checked against the same ranges each time a message is sent.",
    request: jsonBody(channelCreateBody),
    responses: {
      201: { description: "Channel created", ...jsonContent(envelope(createdChannelSchema)) },
      ...errorResponses(400, 401, 403, 409, 422, 503),
    },
  });
  app.openapi(route, async (c) => {
    const b = c.req.valid("json");
    const ch = await api.createChannel(requirePrincipal(c), { name: b.name, type: b.type, config: b.config });
    const view = toChannelView(ch);
    return ok(c, ch.generated ? { ...view, generated: ch.generated } : view, 201);
  });
}
