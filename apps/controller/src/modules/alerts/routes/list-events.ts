import { requirePrincipal } from "../../../http/auth.js";
import { registerPagedList, type SecuredRoute } from "../../../http/route-kit.js";
import type { Router } from "../../../http/router.js";
import { EVENTS_PAGE, eventFilters, eventSchema } from "../schemas.js";
import type { AlertsService } from "../types.js";
import { toEventView } from "../views.js";

/** `GET /v1/alert-events`: `?page&limit` (A) or `?page&per_page` (B), `&monitor_id&type`. */
export function registerListEvents(app: Router, api: AlertsService, common: SecuredRoute): void {
  registerPagedList(app, {
    common,
    path: "/v1/alert-events",
    summary: "The caller's alert events, newest first",
    description:
      "`monitor_id` and `type` (down, up, reminder, test) narrow the list; `total` counts what matches. A page " +
      "beyond the last answers with no items and the same total.",
    answer: "A page of events",
    item: eventSchema,
    pageSize: EVENTS_PAGE,
    filters: eventFilters,
    list: (c, { page, limit, monitor_id, type }) =>
      api.listEvents(requirePrincipal(c), { page, limit, monitorId: monitor_id, type }),
    view: toEventView,
  });
}
