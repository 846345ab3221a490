import { createRoute } from "@hono/zod-openapi";
import { requirePrincipal } from "../../../http/auth.js";
import { envelope, errorResponses, jsonContent, ok } from "../../../http/envelope.js";
import type { Router } from "../../../http/router.js";
import type { ApiForm } from "../../../http/security.js";
import { channelListA, channelListB, channelListQueryA, channelListQueryB } from "../api-schemas.js";
import type { AlertsApi } from "../api-types.js";
import { type SecuredRoute, toChannelView } from "./shared.js";

const summary = "List the caller's alert channels, newest first";
const description =
  "Secret settings show as `********`. Pages of 100 by default, so a client that does not page gets every " +
  "channel a plan allows; a page beyond the last answers with no items and the same total.";

const listA = (common: SecuredRoute) =>
  createRoute({
    ...common,
    method: "get",
    path: "/v1/alert-channels",
    summary,
    description,
    request: { query: channelListQueryA },
    responses: {
      200: { description: "A page of channels", ...jsonContent(envelope(channelListA)) },
      ...errorResponses(400, 401, 403),
    },
  });

const listB = (common: SecuredRoute) =>
  createRoute({
    ...common,
    method: "get",
    path: "/v1/alert-channels",
    summary,
    description,
    request: { query: channelListQueryB },
    responses: {
      200: { description: "A page of channels", ...jsonContent(envelope(channelListB)) },
      ...errorResponses(400, 401, 403),
    },
  });

/** `GET /v1/alert-channels`: `?page&limit` (A) or `?page&per_page` (B) → `{items, total, page, …}`. */
export function registerListChannels(app: Router, api: AlertsApi, common: SecuredRoute, form: ApiForm): void {
  if (form === "a") {
    app.openapi(listA(common), async (c) => {
      const { page, limit } = c.req.valid("query");
      const { items, total } = await api.listChannels(requirePrincipal(c), { page, limit });
      return ok(c, { items: items.map(toChannelView), total, page, limit }, 200);
    });
  } else {
    app.openapi(listB(common), async (c) => {
      const { page, per_page } = c.req.valid("query");
      const { items, total } = await api.listChannels(requirePrincipal(c), { page, limit: per_page });
      return ok(c, { items: items.map(toChannelView), total, page, per_page }, 200);
    });
  }
}
