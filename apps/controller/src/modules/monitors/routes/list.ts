import { requirePrincipal } from "../../../http/auth.js";
import { registerPagedList, type SecuredRoute } from "../../../http/route-kit.js";
import type { Router } from "../../../http/router.js";
import { MONITORS_PAGE, monitorA, monitorB } from "../schemas.js";
import type { MonitorCrudService } from "../service.js";
import { toMonitorA, toMonitorB } from "../views.js";

/** `GET /v1/monitors`: `?page&limit` → `{items, total, page, limit}` (A), `?page&per_page` (B). */
export function registerList(app: Router, svc: MonitorCrudService, common: SecuredRoute): void {
  const { form } = common;
  registerPagedList(app, {
    common,
    path: "/v1/monitors",
    summary: "List the caller's monitors, newest first",
    description: "A page beyond the last answers with no items and the same total.",
    answer: "A page of monitors",
    item: form === "a" ? monitorA : monitorB,
    pageSize: MONITORS_PAGE,
    list: (c, page) => svc.list(requirePrincipal(c), page),
    view: form === "a" ? toMonitorA : toMonitorB,
  });
}
