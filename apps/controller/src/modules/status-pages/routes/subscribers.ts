import { createRoute, z } from "@hono/zod-openapi";
import { requirePrincipal } from "../../../http/auth.js";
import { envelope, errorResponses, jsonBody, jsonContent, ok } from "../../../http/envelope.js";
import { registerPagedList, type SecuredRoute } from "../../../http/route-kit.js";
import type { Router } from "../../../http/router.js";
import {
  newWebhookSubscriber,
  pageIdParam,
  subscriberParams,
  subscriberView,
  webhookSubscriberBody,
} from "../schemas.js";
import type { StatusPagesService } from "../service.js";
import { toSubscriber } from "../views.js";

/** A page's subscribers as its owner sees them: add a webhook, list, remove. The same in both forms. */
export function registerSubscriberRoutes(app: Router, svc: StatusPagesService, common: SecuredRoute) {
  app.openapi(
    createRoute({
      ...common,
      method: "post",
      path: "/v1/status-pages/{id}/subscribers",
      summary: "Add a webhook subscriber to a status page",
      description:
        "Incident news is POSTed to `url`, signed per Standard Webhooks (`webhook-id`, `webhook-timestamp`, " +
        "`webhook-signature`) with the `secret` shown once here. The URL passes the target guard when sent; " +
        "one whose host is written as a private or reserved address (or `localhost`) is refused now, 422 " +
        "`target_not_allowed`, unless `VANTAGE_ALLOW_PRIVATE_TARGETS`. " +
        "Email subscribers sign up themselves at `POST /status/{slug}/subscribe` (double opt-in).",
      request: { params: pageIdParam, ...jsonBody(webhookSubscriberBody) },
      responses: {
        201: { description: "Subscribed", ...jsonContent(envelope(newWebhookSubscriber)) },
        ...errorResponses(400, 401, 403, 404, 409, 422, 503),
      },
    }),
    async (c) => {
      const { row, secret } = await svc.addWebhook(
        requirePrincipal(c).userId,
        c.req.valid("param").id,
        c.req.valid("json").url,
      );
      return ok(c, { ...toSubscriber(row), secret }, 201);
    },
  );
  registerPagedList(app, {
    common,
    path: "/v1/status-pages/{id}/subscribers",
    summary: "List a status page's subscribers, newest first",
    description:
      "Email subscribers are `confirmed` once they followed the mailed link. Another account's page → 404.",
    answer: "A page of subscribers",
    item: subscriberView,
    pageSize: 20,
    errors: [400, 401, 403, 404],
    list: (c, pg) => svc.listSubscribers(requirePrincipal(c).userId, c.req.param("id") ?? "", pg),
    view: toSubscriber,
  });
  app.openapi(
    createRoute({
      ...common,
      method: "delete",
      path: "/v1/status-pages/{id}/subscribers/{subscriber_id}",
      summary: "Remove a subscriber",
      description: "Another account's page or an unknown subscriber → 404.",
      request: { params: subscriberParams },
      responses: {
        200: { description: "Removed", ...jsonContent(envelope(z.null())) },
        ...errorResponses(401, 403, 404),
      },
    }),
    async (c) => {
      const { id, subscriber_id } = c.req.valid("param");
      await svc.deleteSubscriber(requirePrincipal(c).userId, id, subscriber_id);
      return ok(c, null, 200);
    },
  );
}
