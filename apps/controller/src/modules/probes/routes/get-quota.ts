import { createRoute } from "@hono/zod-openapi";
import { envelope, errorResponses, ok } from "../../../http/envelope.js";
import { quotaCallerOf } from "../../../http/rate-limit/index.js";
import type { SecuredRoute } from "../../../http/route-kit.js";
import type { Router } from "../../../http/router.js";
import { PROBE_QUOTA_WINDOW_MS } from "../quota.js";
import type { ProbesService } from "../service.js";
import { quotaNote, quotaSchema } from "./shared.js";

/** `GET /v1/probe/quota`: the same in both forms. */
export function registerGetQuota(app: Router, probes: ProbesService, common: SecuredRoute): void {
  const route = createRoute({
    method: "get",
    path: "/v1/probe/quota",
    ...common,
    summary: "The caller's probe quota: what is left this hour, without spending any",
    description: `Same caller rules as the probe routes: credentials name an account, else the client IP counts.${quotaNote}`,
    responses: {
      200: { description: "The quota", content: { "application/json": { schema: envelope(quotaSchema) } } },
      ...errorResponses(401),
    },
  });
  app.openapi(route, (c) => {
    const caller = quotaCallerOf(c);
    const q = probes.quota(caller);
    const now = Date.now();
    const windowEnd = q?.resetAt ?? Math.ceil(now / PROBE_QUOTA_WINDOW_MS) * PROBE_QUOTA_WINDOW_MS;
    return ok(
      c,
      {
        caller: caller.kind,
        limit: q?.limit ?? null,
        used: q?.count ?? 0,
        remaining: q?.remaining ?? null,
        reset_s: Math.ceil((windowEnd - now) / 1000),
      },
      200,
    );
  });
}
