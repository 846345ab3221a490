import { createRoute, z } from "@hono/zod-openapi";
import { requirePrincipal } from "../../../http/auth.js";
import { envelope, errorResponses, jsonBody, jsonContent, ok } from "../../../http/envelope.js";
import type { SecuredRoute } from "../../../http/route-kit.js";
import type { Router } from "../../../http/router.js";
import { type DeletionParticipant, deleteAccount } from "../account-deletion.js";
import type { AccountsContext } from "../context.js";
import { clearedRefreshCookie } from "../cookie.js";
import { accountDeleteBody } from "../schemas.js";

/**
 * `DELETE /v1/account` (an extension, the same in both forms). It answers as every delete of the API does
 * in both forms, 200 `{data: null}`, and removes the dashboard's refresh cookie (its row is gone already).
 */
export function registerDeleteAccount(
  app: Router,
  ctx: AccountsContext,
  common: SecuredRoute,
  participants: readonly DeletionParticipant[],
): void {
  const route = createRoute({
    ...common,
    method: "delete",
    path: "/v1/account",
    summary: "Delete the account and everything it owns (extension, irreversible)",
    description:
      "Only a login session may (an API key, personal access token or MCP token → 403 `forbidden`). The " +
      "current password must match (else 400 `validation_error` on `body.password`; wrong ones count as " +
      "failed logins, 429 beyond 5 in 15 minutes); no body → 400. A live paid subscription is cancelled at " +
      "once at the payment provider first: if the provider refuses or does not answer (502 " +
      "`upstream_error`, 504 `upstream_timeout`), nothing is deleted. Then, at once: the account, its " +
      "monitors and their history, alert channels, policies and events, status pages, maintenance windows, " +
      "probe tasks and share links, API keys, tokens and sessions, billing records; every credential of " +
      "the account stops working on every controller, and the address can register again. A confirmation " +
      "goes to the address the account had.",
    request: jsonBody(accountDeleteBody),
    responses: {
      200: { description: "Deleted", ...jsonContent(envelope(z.null())) },
      ...errorResponses(400, 401, 403, 429, 502, 503, 504),
    },
  });
  app.openapi(route, async (c) => {
    await deleteAccount(ctx, participants, requirePrincipal(c), c.req.valid("json"));
    c.header("Set-Cookie", clearedRefreshCookie(c));
    return ok(c, null, 200);
  });
}
