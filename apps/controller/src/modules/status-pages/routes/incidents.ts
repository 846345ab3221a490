import { createRoute } from "@hono/zod-openapi";
import { requirePrincipal } from "../../../http/auth.js";
import { envelope, errorResponses, jsonBody, jsonContent, ok } from "../../../http/envelope.js";
import { registerPagedList, type SecuredRoute } from "../../../http/route-kit.js";
import type { Router } from "../../../http/router.js";
import { incidentBody, incidentParams, incidentView, pageIdParam, updateBody } from "../schemas.js";
import type { StatusPagesService } from "../service.js";
import { toIncident } from "../views.js";

/** A page's incidents: open one (with its first update), add updates, list. The same in both forms. */
export function registerIncidentRoutes(app: Router, svc: StatusPagesService, common: SecuredRoute) {
  app.openapi(
    createRoute({
      ...common,
      method: "post",
      path: "/v1/status-pages/{id}/incidents",
      summary: "Open an incident on a status page",
      description:
        "`message` is its first update; `status` defaults to `investigating`, `impact` to `minor`. Confirmed " +
        "subscribers are told (email, signed webhook). Incidents also open by themselves when a component's " +
        "monitor goes down on a page with `auto_incidents`.",
      request: { params: pageIdParam, ...jsonBody(incidentBody) },
      responses: {
        201: { description: "Incident opened", ...jsonContent(envelope(incidentView)) },
        ...errorResponses(400, 401, 403, 404),
      },
    }),
    async (c) => {
      const i = await svc.openIncident(
        requirePrincipal(c).userId,
        c.req.valid("param").id,
        c.req.valid("json"),
      );
      return ok(c, toIncident(i), 201);
    },
  );
  app.openapi(
    createRoute({
      ...common,
      method: "post",
      path: "/v1/status-pages/{id}/incidents/{incident_id}/updates",
      summary: "Add an update to an incident",
      description:
        "The update's `status` becomes the incident's; `resolved` resolves it. Subscribers are told.",
      request: { params: incidentParams, ...jsonBody(updateBody) },
      responses: {
        201: {
          description: "The incident with its updates, newest first",
          ...jsonContent(envelope(incidentView)),
        },
        ...errorResponses(400, 401, 403, 404),
      },
    }),
    async (c) => {
      const { id, incident_id } = c.req.valid("param");
      const i = await svc.addUpdate(requirePrincipal(c).userId, id, incident_id, c.req.valid("json"));
      return ok(c, toIncident(i), 201);
    },
  );
  registerPagedList(app, {
    common,
    path: "/v1/status-pages/{id}/incidents",
    summary: "List a status page's incidents, newest first",
    description: "Each with its updates, newest first. Another account's page → 404.",
    answer: "A page of incidents",
    item: incidentView,
    pageSize: 20,
    errors: [400, 401, 403, 404],
    list: (c, pg) => svc.listIncidents(requirePrincipal(c).userId, c.req.param("id") ?? "", pg),
    view: toIncident,
  });
}
