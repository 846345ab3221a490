import { createRoute } from "@hono/zod-openapi";
import { requirePrincipal } from "../../../http/auth.js";
import { envelope, errorResponses, jsonContent, ok } from "../../../http/envelope.js";
import type { SecuredRoute } from "../../../http/route-kit.js";
import type { Router } from "../../../http/router.js";
import type { AccountsContext } from "../context.js";
import { createKeyAs, listKeys } from "../keys.js";
import { createdMcpToken, createPatBody, mcpTokenList, pageQuery } from "../schemas.js";
import { toPat } from "../views.js";
import { FORM_A_KEY_TERMS, formAKeyRequest } from "./create-key.js";
import { registerRevokeKey } from "./revoke-key.js";

/**
 * MCP tokens (Form A only): the credential an MCP client (Claude Desktop, an IDE) is given. Accepted only
 * at `/v1/mcp`; every other route answers one with 401 `mcp_token_not_accepted`, so a token pasted into a
 * client's configuration cannot manage the account. Scopes and expiry as personal access tokens.
 */
export function registerMcpTokenRoutes(app: Router, ctx: AccountsContext, common: SecuredRoute): void {
  const create = createRoute({
    ...common,
    method: "post",
    path: "/v1/account/mcp-tokens",
    summary: "Create an MCP token (`vantage_mcp_…`); shown only in this response",
    description:
      "An MCP token is accepted only at the MCP entry point (`/v1/mcp`, which needs the `write` scope); anywhere else it " +
      `is refused with 401 \`mcp_token_not_accepted\`. It does not replace an API key. ${FORM_A_KEY_TERMS}`,
    request: { body: { required: true, ...jsonContent(createPatBody) } },
    responses: {
      201: { description: "Token created", ...jsonContent(envelope(createdMcpToken)) },
      ...errorResponses(400, 401, 403, 409),
    },
  });
  app.openapi(create, async (c) => {
    const input = formAKeyRequest("mcp", c.req.valid("json"));
    const { row, secret } = await createKeyAs(ctx, requirePrincipal(c), input);
    return ok(c, { ...toPat(row), token: secret }, 201);
  });

  const list = createRoute({
    ...common,
    method: "get",
    path: "/v1/account/mcp-tokens",
    summary: "List the caller's active MCP tokens",
    request: { query: pageQuery },
    responses: {
      200: { description: "A page of tokens, newest first", ...jsonContent(envelope(mcpTokenList)) },
      ...errorResponses(400, 401, 403),
    },
  });
  app.openapi(list, async (c) => {
    const page = c.req.valid("query");
    const { items, total } = await listKeys(ctx, requirePrincipal(c).userId, "mcp", page);
    return ok(c, { tokens: items.map(toPat), total, limit: page.limit, offset: page.offset }, 200);
  });

  registerRevokeKey(app, ctx, common, "mcp");
}
