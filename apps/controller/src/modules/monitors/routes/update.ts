import { createRoute } from "@hono/zod-openapi";
import { requirePrincipal } from "../../../http/auth.js";
import { envelope, errorResponses, jsonBody, jsonContent, ok } from "../../../http/envelope.js";
import type { SecuredRoute } from "../../../http/route-kit.js";
import type { Router } from "../../../http/router.js";
import { fromPatchB } from "../form-b.js";
import { idParam, monitorA, monitorB, patchBodyA, patchBodyB } from "../schemas.js";
import type { MonitorCrudService } from "../service.js";
import { toMonitorA, toMonitorB } from "../views.js";

const summary = "Change a monitor's name, interval or settings; answers with the whole monitor";
const rules =
  "Type and target cannot change (create another monitor). A new interval moves the next run to the first " +
  "slot of the new interval from now. Another account's id → 404.";

const patchA = (common: SecuredRoute) =>
  createRoute({
    ...common,
    method: "patch",
    path: "/v1/monitors/{id}",
    summary,
    description: `Takes \`name\`, \`interval_s\` and \`config\`; any other field → 400. ${rules}`,
    request: { params: idParam, ...jsonBody(patchBodyA) },
    responses: {
      200: { description: "Updated monitor", ...jsonContent(envelope(monitorA)) },
      ...errorResponses(400, 401, 403, 404, 422),
    },
  });

const patchB = (common: SecuredRoute) =>
  createRoute({
    ...common,
    method: "patch",
    path: "/v1/monitors/{id}",
    summary,
    description:
      "Takes `name`, `interval`, `config`, and for dns monitors `record_type` and `server` (null: the " +
      `default); any other field → 400. ${rules}`,
    request: { params: idParam, ...jsonBody(patchBodyB) },
    responses: {
      200: { description: "Updated monitor", ...jsonContent(envelope(monitorB)) },
      ...errorResponses(400, 401, 403, 404, 422),
    },
  });

/** `PATCH /v1/monitors/{id}`. */
export function registerUpdate(app: Router, svc: MonitorCrudService, common: SecuredRoute): void {
  const { form } = common;
  if (form === "a") {
    app.openapi(patchA(common), async (c) => {
      const b = c.req.valid("json");
      const m = await svc.update(requirePrincipal(c), c.req.valid("param").id, {
        name: b.name,
        intervalS: b.interval_s,
        config: b.config,
      });
      return ok(c, toMonitorA(m), 200);
    });
  } else {
    app.openapi(patchB(common), async (c) => {
      const principal = requirePrincipal(c);
      const { id } = c.req.valid("param");
      // The DNS fields depend on the type, which never changes: reading it first races with nothing.
      const { type } = await svc.get(principal, id);
      const m = await svc.update(principal, id, fromPatchB(c.req.valid("json"), type));
      return ok(c, toMonitorB(m), 200);
    });
  }
}
