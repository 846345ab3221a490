import { createRoute } from "@hono/zod-openapi";
import { requirePrincipal } from "../../../http/auth.js";
import { envelope, errorResponses, jsonContent, ok } from "../../../http/envelope.js";
import { rateLimitHeaders } from "../../../http/rate-limit/index.js";
import { setResponseHeader } from "../../../http/response-headers.js";
import type { SecuredRoute } from "../../../http/route-kit.js";
import type { Router } from "../../../http/router.js";
import { idParam, testResultSchema } from "../schemas.js";
import type { TestSends } from "../test-sends.js";
import type { AlertsService } from "../types.js";

const limitHeader = (description: string) => ({ description, schema: { type: "integer" as const } });

/** `POST /v1/alert-channels/{id}/test`: the same contract in both forms. */
export function registerTestChannel(
  app: Router,
  api: AlertsService,
  common: SecuredRoute,
  testSends: TestSends,
): void {
  const errors = errorResponses(401, 403, 404, 429, 503);
  const route = createRoute({
    ...common,
    method: "post",
    path: "/v1/alert-channels/{id}/test",
    summary: "Send a test message through a channel now",
    description:
      "Sent at once, not retried. The answer is 200 whatever the vendor said: `ok`, the vendor's `status` " +
      "and, on failure, the `reason`. Another account's id → 404. Only accounts with a verified email " +
      "address may send tests (403 `email_not_verified` otherwise). Test sends are limited per channel " +
      "(`VANTAGE_ALERT_TEST_LIMIT_CHANNEL`, 10 an hour by default) and per account, all channels together " +
      "(`VANTAGE_ALERT_TEST_LIMIT_ACCOUNT`, 30 an hour): beyond either, 429 `rate_limited` with " +
      "`Retry-After`. Each test sent is metered as usage (`alert_tests` in `GET /v1/account/usage`).",
    request: { params: idParam },
    responses: {
      200: {
        description: "What the vendor answered",
        headers: {
          "RateLimit-Limit": limitHeader("The tighter of the two test-send limits"),
          "RateLimit-Remaining": limitHeader("Test sends left under it this hour"),
          "RateLimit-Reset": limitHeader("Seconds until its window starts afresh"),
        },
        ...jsonContent(envelope(testResultSchema)),
      },
      ...errors,
      403: {
        ...errors[403]!,
        description:
          "Credentials lack the needed scope (`insufficient_scope`), or the account's email address is not " +
          "verified (`email_not_verified`)",
      },
    },
  });
  app.openapi(route, async (c) => {
    const principal = requirePrincipal(c);
    const id = c.req.valid("param").id;
    const caller = {
      kind: "account" as const,
      userId: principal.userId,
      plan: principal.plan,
      credentialId: principal.credentialId,
    };
    // Another account's or an unknown id is a 404 first, whatever else holds for the caller.
    await api.getChannel(principal, id);
    const { value: outcome, limit } = await testSends.run(caller, id, () => api.testChannel(principal, id));
    for (const [k, v] of Object.entries(rateLimitHeaders(limit))) setResponseHeader(c, k, v);
    const view = {
      ok: outcome.ok,
      status: outcome.status,
      reason: outcome.ok ? null : (outcome.reason ?? null),
      ...(outcome.attempts ? { attempts: outcome.attempts } : {}),
    };
    return ok(c, view, 200);
  });
}
