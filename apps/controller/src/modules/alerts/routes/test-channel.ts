import { createRoute } from "@hono/zod-openapi";
import { requirePrincipal } from "../../../http/auth.js";
import { envelope, errorResponses, jsonContent, ok } from "../../../http/envelope.js";
import type { Router } from "../../../http/router.js";
import { idParam, testResultSchema } from "../api-schemas.js";
import type { AlertsApi } from "../api-types.js";
import type { SecuredRoute } from "./shared.js";

/** `POST /v1/alert-channels/{id}/test`: the same contract in both forms. */
export function registerTestChannel(app: Router, api: AlertsApi, common: SecuredRoute): void {
  const route = createRoute({
    ...common,
    method: "post",
    path: "/v1/alert-channels/{id}/test",
    summary: "Send a test message through a channel now",
    description:
      "Sent at once, not retried. The answer is 200 whatever the vendor said: `ok`, the vendor's `status` " +
      "and, on failure, the `reason`. Another account's id → 404.",
    request: { params: idParam },
    responses: {
      200: { description: "What the vendor answered", ...jsonContent(envelope(testResultSchema)) },
      ...errorResponses(401, 403, 404, 503),
    },
  });
  app.openapi(route, async (c) => {
    const outcome = await api.testChannel(requirePrincipal(c), c.req.valid("param").id);
    const view = {
      ok: outcome.ok,
      status: outcome.status,
      reason: outcome.ok ? null : (outcome.reason ?? null),
      ...(outcome.attempts ? { attempts: outcome.attempts } : {}),
    };
    return ok(c, view, 200);
  });
}
