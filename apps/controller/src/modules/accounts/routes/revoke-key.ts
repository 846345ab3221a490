import { createRoute, z } from "@hono/zod-openapi";
import { requirePrincipal } from "../../../http/auth.js";
import { envelope, errorResponses, jsonContent, ok } from "../../../http/envelope.js";
import type { SecuredRoute } from "../../../http/route-kit.js";
import type { Router } from "../../../http/router.js";
import type { AccountsContext } from "../context.js";
import { revokeKey } from "../keys.js";
import { idParam } from "../schemas.js";

const paths = {
  api_key: "/v1/account/api-keys/{id}",
  pat: "/v1/account/tokens/{id}",
  mcp: "/v1/account/mcp-tokens/{id}",
} as const;
const summaries = {
  api_key: "Revoke an API key",
  pat: "Revoke a personal access token",
  mcp: "Revoke an MCP token",
} as const;

/**
 * `DELETE /v1/account/api-keys/{id}` (both forms), `DELETE /v1/account/tokens/{id}` and
 * `DELETE /v1/account/mcp-tokens/{id}` (Form A): the same contract in both forms.
 */
export function registerRevokeKey(
  app: Router,
  ctx: AccountsContext,
  common: SecuredRoute,
  kind: "api_key" | "pat" | "mcp",
): void {
  const route = createRoute({
    ...common,
    method: "delete",
    path: paths[kind],
    summary: summaries[kind],
    description:
      "Takes effect at once on every controller (within 10 s on one that cannot hear the database's " +
      "notifications meanwhile). Another account's id → 404.",
    request: { params: idParam },
    responses: {
      200: { description: "Revoked", ...jsonContent(envelope(z.null())) },
      ...errorResponses(401, 403, 404),
    },
  });
  app.openapi(route, async (c) => {
    await revokeKey(ctx, requirePrincipal(c).userId, kind, c.req.valid("param").id);
    return ok(c, null, 200);
  });
}
