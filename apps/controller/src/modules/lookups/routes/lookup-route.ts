import { createRoute, z } from "@hono/zod-openapi";
import type { LookupKind } from "@vantage/lookups";
import type { Context } from "hono";
import type { AppEnv } from "../../../http/context.js";
import { envelope, errorResponses, ok } from "../../../http/envelope.js";
import { quotaCallerOf, setQuotaHeaders } from "../../../http/rate-limit/index.js";
import type { SecuredRoute } from "../../../http/route-kit.js";
import type { Router } from "../../../http/router.js";
import type { LookupsService } from "../service.js";

/** What differs between the lookup routes: the rest (auth, quota, cache flag, errors) is one code path. */
export interface LookupRouteSpec {
  kind: LookupKind;
  path: `/v1/${string}`;
  summary: string;
  description: string;
  /** The query parameters of the form. */
  query: z.ZodObject;
  /** The form's query → the lookup's input; the caller's context for defaults (Form B's own IP). */
  input(query: Record<string, string | undefined>, c: Context<AppEnv>): Record<string, unknown>;
  /** Lookup input field → query parameter, for error paths (`domain` → `query.q`). */
  fieldNames: Record<string, string>;
  /** The lookup's result schema (`packages/lookups`). */
  result: z.ZodObject;
  /** Fields added to every answer of this kind (the IP data's attribution). */
  extra?: Record<string, unknown>;
  /** The extra fields' schema. */
  extraSchema?: z.ZodRawShape;
  /** Error statuses this lookup can answer besides 400 and 429. */
  errors: readonly number[];
}

export const lookupQuotaNote =
  " Limits (the plan table, `VANTAGE_PLAN_LIMITS`): without credentials per client IP (IPv6 per /64) per " +
  "minute and per day (429 `rate_limited`); with an API key per key per minute (429 `rate_limited`) and " +
  "per account per day against the plan's quota (429 `quota_exceeded`). `RateLimit-*` headers tell what " +
  "is left of the tightest limit; a 429 carries `Retry-After`. Answered calls with credentials are metered " +
  "(`GET /v1/account/usage`). `cached` says whether the answer came from this controller's short-lived cache.";

/** Registers one `GET /v1/info/*` (or `/v1/ip/*`) lookup route for the active form. */
export function registerLookupRoute(
  app: Router,
  info: LookupsService,
  common: SecuredRoute,
  spec: LookupRouteSpec,
): void {
  const data = spec.result.extend({
    ...spec.extraSchema,
    cached: z.boolean().openapi({ description: "Answered from this controller's cache" }),
  });
  const route = createRoute({
    method: "get",
    path: spec.path,
    ...common,
    summary: spec.summary,
    description: spec.description + lookupQuotaNote,
    "x-vantage-limit": spec.kind === "reputation" ? "reputation" : "lookups",
    request: { query: spec.query },
    responses: {
      200: {
        description: "The lookup's answer",
        content: { "application/json": { schema: envelope(data) } },
      },
      ...errorResponses(400, 401, ...spec.errors, 429),
    },
  });
  app.openapi(route, async (c) => {
    const query = c.req.valid("query") as Record<string, string | undefined>;
    const answer = await info.lookup(spec.kind, spec.input(query, c), quotaCallerOf(c), spec.fieldNames);
    setQuotaHeaders(c, answer.quota);
    return ok(c, { ...answer.data, ...spec.extra, cached: answer.cached } as z.infer<typeof data>, 200);
  });
}

/** A required query parameter: present and not blank (the lookup says what else is wrong with it). */
export function required(description: string, example: string) {
  return z.string({ error: "required" }).min(1, "required").max(1024).openapi({ description, example });
}

/** An optional query parameter. */
export function optional(description: string, example: string) {
  return z.string().max(1024).optional().openapi({ description, example });
}
