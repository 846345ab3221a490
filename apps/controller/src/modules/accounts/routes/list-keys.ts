import { createRoute } from "@hono/zod-openapi";
import { requirePrincipal } from "../../../http/auth.js";
import { envelope, errorResponses, jsonContent, ok } from "../../../http/envelope.js";
import type { SecuredRoute } from "../../../http/route-kit.js";
import type { Router } from "../../../http/router.js";
import type { AccountsContext } from "../context.js";
import { listKeys } from "../keys.js";
import { keyListA, keyListB, pageQuery } from "../schemas.js";
import { toKeyA, toKeyB } from "../views.js";

/** Form B has no paging parameters: its list answers with up to this many keys (the per-account cap). */
const FORM_B_LIST_LIMIT = 100;

const listA = (common: SecuredRoute) =>
  createRoute({
    ...common,
    method: "get",
    path: "/v1/account/api-keys",
    summary: "List the caller's active API keys (never the secrets)",
    request: { query: pageQuery },
    responses: {
      200: { description: "A page of keys, newest first", ...jsonContent(envelope(keyListA)) },
      ...errorResponses(400, 401, 403),
    },
  });

const listB = (common: SecuredRoute) =>
  createRoute({
    ...common,
    method: "get",
    path: "/v1/account/api-keys",
    summary: "List the caller's active API keys (never the secrets)",
    responses: {
      200: { description: "Keys, newest first", ...jsonContent(envelope(keyListB)) },
      ...errorResponses(401, 403),
    },
  });

/** `GET /v1/account/api-keys`: a page with its total (Form A), or every key (Form B). */
export function registerListKeys(app: Router, ctx: AccountsContext, common: SecuredRoute): void {
  if (ctx.form === "a") {
    app.openapi(listA(common), async (c) => {
      const page = c.req.valid("query");
      const { items, total } = await listKeys(ctx, requirePrincipal(c).userId, "api_key", page);
      return ok(c, { api_keys: items.map(toKeyA), total, limit: page.limit, offset: page.offset }, 200);
    });
  } else {
    app.openapi(listB(common), async (c) => {
      const page = { limit: FORM_B_LIST_LIMIT, offset: 0 };
      const { items } = await listKeys(ctx, requirePrincipal(c).userId, "api_key", page);
      return ok(c, { items: items.map(toKeyB) }, 200);
    });
  }
}
