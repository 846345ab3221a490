import { requirePrincipal } from "../../../http/auth.js";
import { registerPagedList, type SecuredRoute } from "../../../http/route-kit.js";
import type { Router } from "../../../http/router.js";
import { channelSchema, WHOLE_LIST } from "../schemas.js";
import type { AlertsService } from "../types.js";
import { toChannelView } from "../views.js";

/** `GET /v1/alert-channels`: `?page&limit` (A) or `?page&per_page` (B) → `{items, total, page, …}`. */
export function registerListChannels(app: Router, api: AlertsService, common: SecuredRoute): void {
  registerPagedList(app, {
    common,
    path: "/v1/alert-channels",
    summary: "List the caller's alert channels, newest first",
    description:
      "Secret settings show as `********`. Pages of 100 by default, so a client that does not page gets every " +
      "channel a plan allows; a page beyond the last answers with no items and the same total.",
    answer: "A page of channels",
    item: channelSchema,
    pageSize: WHOLE_LIST,
    list: (c, page) => api.listChannels(requirePrincipal(c), page),
    view: toChannelView,
  });
}
