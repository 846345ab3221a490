import { createRoute } from "@hono/zod-openapi";
import { requirePrincipal } from "../../../http/auth.js";
import { envelope, errorResponses, jsonContent, ok } from "../../../http/envelope.js";
import type { SecuredRoute } from "../../../http/route-kit.js";
import type { Router } from "../../../http/router.js";
import type { AccountsContext } from "../context.js";
import { createKeyAs, listKeys } from "../keys.js";
import { createdPat, createPatBody, pageQuery, patList } from "../schemas.js";
import { toPat } from "../views.js";
import { FORM_A_KEY_TERMS, formAKeyRequest } from "./create-key.js";
import { registerRevokeKey } from "./revoke-key.js";

/**
 * Personal access tokens: Form A only (Form B has none). They act as the user (CLI, scripts) and have
 * scopes and expiry like Form A's API keys.
 */
export function registerTokenRoutes(app: Router, ctx: AccountsContext, common: SecuredRoute): void {
  const create = createRoute({
    ...common,
    method: "post",
    path: "/v1/account/tokens",
    summary: "Create a personal access token (`vantage_pat_…`); shown only in this response",
    description: `A personal access token acts as the user (CLI, scripts); it has scopes and expiry like an API key. ${FORM_A_KEY_TERMS}`,
    request: { body: { required: true, ...jsonContent(createPatBody) } },
    responses: {
      201: { description: "Token created", ...jsonContent(envelope(createdPat)) },
      ...errorResponses(400, 401, 403, 409),
    },
  });
  app.openapi(create, async (c) => {
    const input = formAKeyRequest("pat", c.req.valid("json"));
    const { row, secret } = await createKeyAs(ctx, requirePrincipal(c), input);
    return ok(c, { ...toPat(row), token: secret }, 201);
  });

  const list = createRoute({
    ...common,
    method: "get",
    path: "/v1/account/tokens",
    summary: "List the caller's active personal access tokens",
    request: { query: pageQuery },
    responses: {
      200: { description: "A page of tokens, newest first", ...jsonContent(envelope(patList)) },
      ...errorResponses(400, 401, 403),
    },
  });
  app.openapi(list, async (c) => {
    const page = c.req.valid("query");
    const { items, total } = await listKeys(ctx, requirePrincipal(c).userId, "pat", page);
    return ok(c, { tokens: items.map(toPat), total, limit: page.limit, offset: page.offset }, 200);
  });

  registerRevokeKey(app, ctx, common, "pat");
}
