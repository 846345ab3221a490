import { createRoute } from "@hono/zod-openapi";
import { requirePrincipal } from "../../../http/auth.js";
import { envelope, errorResponses, jsonContent, ok } from "../../../http/envelope.js";
import type { Router } from "../../../http/router.js";
import type { ApiForm } from "../../../http/security.js";
import { eventListA, eventListB, eventListQueryA, eventListQueryB } from "../api-schemas.js";
import type { AlertsApi } from "../api-types.js";
import { type SecuredRoute, toEventView } from "./shared.js";

const summary = "The caller's alert events, newest first";
const description =
  "`monitor_id` and `type` (down, up, reminder, test) narrow the list; `total` counts what matches. A page " +
  "beyond the last answers with no items and the same total.";

const listA = (common: SecuredRoute) =>
  createRoute({
    ...common,
    method: "get",
    path: "/v1/alert-events",
    summary,
    description,
    request: { query: eventListQueryA },
    responses: {
      200: { description: "A page of events", ...jsonContent(envelope(eventListA)) },
      ...errorResponses(400, 401, 403),
    },
  });

const listB = (common: SecuredRoute) =>
  createRoute({
    ...common,
    method: "get",
    path: "/v1/alert-events",
    summary,
    description,
    request: { query: eventListQueryB },
    responses: {
      200: { description: "A page of events", ...jsonContent(envelope(eventListB)) },
      ...errorResponses(400, 401, 403),
    },
  });

/** `GET /v1/alert-events`: `?page&limit` (A) or `?page&per_page` (B), `&monitor_id&type`. */
export function registerListEvents(app: Router, api: AlertsApi, common: SecuredRoute, form: ApiForm): void {
  if (form === "a") {
    app.openapi(listA(common), async (c) => {
      const { page, limit, monitor_id, type } = c.req.valid("query");
      const { items, total } = await api.listEvents(requirePrincipal(c), {
        page,
        limit,
        monitorId: monitor_id,
        type,
      });
      return ok(c, { items: items.map(toEventView), total, page, limit }, 200);
    });
  } else {
    app.openapi(listB(common), async (c) => {
      const { page, per_page, monitor_id, type } = c.req.valid("query");
      const { items, total } = await api.listEvents(requirePrincipal(c), {
        page,
        limit: per_page,
        monitorId: monitor_id,
        type,
      });
      return ok(c, { items: items.map(toEventView), total, page, per_page }, 200);
    });
  }
}
