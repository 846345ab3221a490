import { requirePrincipal } from "../../../http/auth.js";
import { registerPagedList, type SecuredRoute } from "../../../http/route-kit.js";
import type { Router } from "../../../http/router.js";
import { policyFilters, policySchema, WHOLE_LIST } from "../schemas.js";
import type { AlertsService } from "../types.js";
import { toPolicyView } from "../views.js";

/** `GET /v1/alert-policies`: `?page&limit` (A) or `?page&per_page` (B), `&monitor_id`. */
export function registerListPolicies(app: Router, api: AlertsService, common: SecuredRoute): void {
  registerPagedList(app, {
    common,
    path: "/v1/alert-policies",
    summary: "List the caller's alert policies, newest first",
    description:
      "`monitor_id` narrows the list to one monitor's. Pages of 100 by default; a page beyond the last answers " +
      "with no items and the same total.",
    answer: "A page of policies",
    item: policySchema,
    pageSize: WHOLE_LIST,
    filters: policyFilters,
    list: (c, { page, limit, monitor_id }) =>
      api.listPolicies(requirePrincipal(c), { page, limit, monitorId: monitor_id }),
    view: toPolicyView,
  });
}
