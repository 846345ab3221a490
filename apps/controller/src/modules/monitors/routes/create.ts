import { createRoute } from "@hono/zod-openapi";
import { requirePrincipal } from "../../../http/auth.js";
import { envelope, errorResponses, jsonBody, jsonContent, ok } from "../../../http/envelope.js";
import type { SecuredRoute } from "../../../http/route-kit.js";
import type { Router } from "../../../http/router.js";
import { fromCreateB } from "../form-b.js";
import { createBodyA, createBodyB, monitorA, monitorB } from "../schemas.js";
import type { MonitorCrudService } from "../service.js";
import { toMonitorA, toMonitorB } from "../views.js";

const summary = "Create a monitor (a recurring probe); it starts `active`";
const rules =
  "The target and settings are checked as probes check them: a literal address in a private or reserved " +
  "range → 422 `target_not_allowed`. More monitors than the plan allows (free 10, pro 100, business " +
  "1000) → 409 `conflict`.";

const createA = (common: SecuredRoute) =>
  createRoute({
    ...common,
    method: "post",
    path: "/v1/monitors",
    summary,
    description: `\`interval_s\` omitted: 60 s, or the plan's minimum when longer. ${rules}`,
    request: jsonBody(createBodyA),
    responses: {
      201: { description: "Monitor created", ...jsonContent(envelope(monitorA)) },
      ...errorResponses(400, 401, 403, 409, 422),
    },
  });

const createB = (common: SecuredRoute) =>
  createRoute({
    ...common,
    method: "post",
    path: "/v1/monitors",
    summary,
    description:
      "The target as in probe bodies: `url` (http), `host` (ping, traceroute), `host` and `port` (tcp), " +
      "`domain` with `record_type?` and `server?` (dns); other types may instead give Form A's target text " +
      `in \`url\`. \`interval\` omitted: 60 s, or the plan's minimum when longer. ${rules}`,
    request: jsonBody(createBodyB),
    responses: {
      201: { description: "Monitor created", ...jsonContent(envelope(monitorB)) },
      ...errorResponses(400, 401, 403, 409, 422),
    },
  });

/** `POST /v1/monitors`. */
export function registerCreate(app: Router, svc: MonitorCrudService, common: SecuredRoute): void {
  const { form } = common;
  if (form === "a") {
    app.openapi(createA(common), async (c) => {
      const b = c.req.valid("json");
      const m = await svc.create(requirePrincipal(c), {
        name: b.name,
        type: b.type,
        target: b.target,
        config: b.config,
        intervalS: b.interval_s,
      });
      return ok(c, toMonitorA(m), 201);
    });
  } else {
    app.openapi(createB(common), async (c) => {
      const m = await svc.create(requirePrincipal(c), fromCreateB(c.req.valid("json")));
      return ok(c, toMonitorB(m), 201);
    });
  }
}
