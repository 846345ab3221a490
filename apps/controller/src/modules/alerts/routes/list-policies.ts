import { createRoute } from "@hono/zod-openapi";
import { requirePrincipal } from "../../../http/auth.js";
import { envelope, errorResponses, jsonContent, ok } from "../../../http/envelope.js";
import type { Router } from "../../../http/router.js";
import type { ApiForm } from "../../../http/security.js";
import { policyListA, policyListB, policyListQueryA, policyListQueryB } from "../api-schemas.js";
import type { AlertsApi } from "../api-types.js";
import { type SecuredRoute, toPolicyView } from "./shared.js";

const summary = "List the caller's alert policies, newest first";
const description =
  "`monitor_id` narrows the list to one monitor's. Pages of 100 by default; a page beyond the last answers " +
  "with no items and the same total.";

const listA = (common: SecuredRoute) =>
  createRoute({
    ...common,
    method: "get",
    path: "/v1/alert-policies",
    summary,
    description,
    request: { query: policyListQueryA },
    responses: {
      200: { description: "A page of policies", ...jsonContent(envelope(policyListA)) },
      ...errorResponses(400, 401, 403),
    },
  });

const listB = (common: SecuredRoute) =>
  createRoute({
    ...common,
    method: "get",
    path: "/v1/alert-policies",
    summary,
    description,
    request: { query: policyListQueryB },
    responses: {
      200: { description: "A page of policies", ...jsonContent(envelope(policyListB)) },
      ...errorResponses(400, 401, 403),
    },
  });

/** `GET /v1/alert-policies`: `?page&limit` (A) or `?page&per_page` (B), `&monitor_id`. */
export function registerListPolicies(app: Router, api: AlertsApi, common: SecuredRoute, form: ApiForm): void {
  if (form === "a") {
    app.openapi(listA(common), async (c) => {
      const { page, limit, monitor_id } = c.req.valid("query");
      const { items, total } = await api.listPolicies(requirePrincipal(c), {
        page,
        limit,
        monitorId: monitor_id,
      });
      return ok(c, { items: items.map(toPolicyView), total, page, limit }, 200);
    });
  } else {
    app.openapi(listB(common), async (c) => {
      const { page, per_page, monitor_id } = c.req.valid("query");
      const { items, total } = await api.listPolicies(requirePrincipal(c), {
        page,
        limit: per_page,
        monitorId: monitor_id,
      });
      return ok(c, { items: items.map(toPolicyView), total, page, per_page }, 200);
    });
  }
}
