import { createRoute } from "@hono/zod-openapi";
import { requirePrincipal } from "../../../http/auth.js";
import { envelope, errorResponses, jsonContent, ok } from "../../../http/envelope.js";
import type { Router } from "../../../http/router.js";
import type { ApiForm } from "../../../http/security.js";
import { listQueryA, listQueryB, monitorListA, monitorListB } from "../schemas.js";
import type { MonitorCrudService } from "../service.js";
import { toMonitorA, toMonitorB } from "../views.js";
import type { SecuredRoute } from "./shared.js";

const summary = "List the caller's monitors, newest first";
const description = "A page beyond the last answers with no items and the same total.";

const listA = (common: SecuredRoute) =>
  createRoute({
    ...common,
    method: "get",
    path: "/v1/monitors",
    summary,
    description,
    request: { query: listQueryA },
    responses: {
      200: { description: "A page of monitors", ...jsonContent(envelope(monitorListA)) },
      ...errorResponses(400, 401, 403),
    },
  });

const listB = (common: SecuredRoute) =>
  createRoute({
    ...common,
    method: "get",
    path: "/v1/monitors",
    summary,
    description,
    request: { query: listQueryB },
    responses: {
      200: { description: "A page of monitors", ...jsonContent(envelope(monitorListB)) },
      ...errorResponses(400, 401, 403),
    },
  });

/** `GET /v1/monitors`: `?page&limit` → `{items, total, page, limit}` (A), `?page&per_page` (B). */
export function registerList(
  app: Router,
  svc: MonitorCrudService,
  common: SecuredRoute,
  form: ApiForm,
): void {
  if (form === "a") {
    app.openapi(listA(common), async (c) => {
      const { page, limit } = c.req.valid("query");
      const { items, total } = await svc.list(requirePrincipal(c), { page, limit });
      return ok(c, { items: items.map(toMonitorA), total, page, limit }, 200);
    });
  } else {
    app.openapi(listB(common), async (c) => {
      const { page, per_page } = c.req.valid("query");
      const { items, total } = await svc.list(requirePrincipal(c), { page, limit: per_page });
      return ok(c, { items: items.map(toMonitorB), total, page, per_page }, 200);
    });
  }
}
