import { createRoute, z } from "@hono/zod-openapi";
import { requirePrincipal } from "../../../http/auth.js";
import { envelope, errorResponses, jsonBody, jsonContent, ok } from "../../../http/envelope.js";
import { registerPagedList, type SecuredRoute } from "../../../http/route-kit.js";
import type { Router } from "../../../http/router.js";
import { maintenanceBody, maintenanceParams, maintenanceView, pageIdParam } from "../schemas.js";
import type { StatusPagesService } from "../service.js";
import { toMaintenance } from "../views.js";

/** A page's scheduled maintenance entries: add, list, delete. The same in both forms. */
export function registerMaintenanceRoutes(app: Router, svc: StatusPagesService, common: SecuredRoute) {
  app.openapi(
    createRoute({
      ...common,
      method: "post",
      path: "/v1/status-pages/{id}/maintenance",
      summary: "Schedule maintenance on a status page",
      description:
        "Shown on the page until `ends_at`; while it runs, components with no monitor up show `maintenance`. " +
        "`ends_at` must be after `starts_at` (ISO 8601 with an offset).",
      request: { params: pageIdParam, ...jsonBody(maintenanceBody) },
      responses: {
        201: { description: "Maintenance scheduled", ...jsonContent(envelope(maintenanceView)) },
        ...errorResponses(400, 401, 403, 404),
      },
    }),
    async (c) => {
      const m = await svc.addMaintenance(
        requirePrincipal(c).userId,
        c.req.valid("param").id,
        c.req.valid("json"),
      );
      return ok(c, toMaintenance(m), 201);
    },
  );
  registerPagedList(app, {
    common,
    path: "/v1/status-pages/{id}/maintenance",
    summary: "List a status page's maintenance entries, latest start first",
    description: "Another account's page → 404.",
    answer: "A page of maintenance entries",
    item: maintenanceView,
    pageSize: 20,
    errors: [400, 401, 403, 404],
    list: (c, pg) => svc.listMaintenance(requirePrincipal(c).userId, c.req.param("id") ?? "", pg),
    view: toMaintenance,
  });
  app.openapi(
    createRoute({
      ...common,
      method: "delete",
      path: "/v1/status-pages/{id}/maintenance/{maintenance_id}",
      summary: "Delete a maintenance entry",
      description: "Another account's page or an unknown entry → 404.",
      request: { params: maintenanceParams },
      responses: {
        200: { description: "Deleted", ...jsonContent(envelope(z.null())) },
        ...errorResponses(401, 403, 404),
      },
    }),
    async (c) => {
      const { id, maintenance_id } = c.req.valid("param");
      await svc.deleteMaintenance(requirePrincipal(c).userId, id, maintenance_id);
      return ok(c, null, 200);
    },
  );
}
