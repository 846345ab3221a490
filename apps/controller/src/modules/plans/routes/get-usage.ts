import { createRoute, z } from "@hono/zod-openapi";
import { requirePrincipal } from "../../../http/auth.js";
import { envelope, errorResponses, jsonContent, ok } from "../../../http/envelope.js";
import type { SecuredRoute } from "../../../http/route-kit.js";
import type { Router } from "../../../http/router.js";
import { planNames } from "../../../lib/plans.js";
import { usageFamilies } from "../families.js";
import type { PlansService } from "../service.js";

const count = z.number().int().nullable();
const planLimitsSchema = z
  .object({
    node_probes_per_hour: count,
    lookups_per_minute: count,
    lookups_per_day: count,
    reputation_per_minute: count,
    reputation_per_day: count,
    monitors: count,
    min_monitor_interval_s: z.number().int(),
    alert_channels: count,
    api_keys: count,
  })
  .openapi("PlanLimits", {
    description:
      "The plan's figures. Per-window figures: null or 0 is unlimited. Counts (monitors, alert_channels, " +
      "api_keys): null is unlimited.",
  });

const usageSchema = z
  .object({
    plan: z.enum(planNames),
    period: z
      .object({ start: z.string(), end: z.string() })
      .openapi({ description: "The metering period: the current calendar month, UTC (ISO 8601)" }),
    usage: z
      .array(
        z.object({
          family: z.enum(usageFamilies),
          unit: z.string().openapi({ example: "node-probes" }),
          units: z.number().int().openapi({ description: "Units metered this period" }),
          calls: z.number().int().openapi({ description: "Calls metered this period" }),
          today_units: z.number().int().openapi({ description: "Units metered today (UTC)" }),
        }),
      )
      .openapi({ description: "One entry per family: probes (node-probes), lookups, reputation" }),
    limits: z
      .array(
        z.object({
          family: z.enum(usageFamilies),
          window: z.enum(["minute", "hour", "day"]),
          per: z.enum(["credential", "account"]).openapi({
            description:
              "credential: counted for the credential of this call; account: for the whole account",
          }),
          code: z
            .enum(["rate_limited", "quota_exceeded"])
            .openapi({ description: "The error code a call over this limit gets (429)" }),
          limit: z.number().int(),
          used: z.number().int(),
          remaining: z.number().int(),
          reset_s: z.number().int().openapi({ description: "Seconds until the window starts afresh" }),
        }),
      )
      .openapi({ description: "Every limit the caller meets now (unlimited figures are absent)" }),
    plan_limits: planLimitsSchema,
  })
  .openapi("AccountUsage");

/** `GET /v1/account/usage`: the same in both forms. */
export function registerGetUsage(app: Router, plans: PlansService, common: SecuredRoute): void {
  const route = createRoute({
    method: "get",
    path: "/v1/account/usage",
    ...common,
    summary: "The account's metered use this period, and where it stands against its plan's limits",
    description:
      "Use is metered per account, UTC day and family: probes in node-probes (a task on 3 nodes is 3), " +
      "lookups and reputation calls one each, counting calls that were answered. Counts reach the shared " +
      "table every few seconds; this answer adds what this controller has not written yet.",
    responses: {
      200: { description: "Usage and limits", ...jsonContent(envelope(usageSchema)) },
      ...errorResponses(401, 403),
    },
  });
  app.openapi(route, async (c) => {
    const p = requirePrincipal(c);
    const report = await plans.usage({
      kind: "account",
      userId: p.userId,
      plan: p.plan,
      credentialId: p.credentialId,
    });
    const now = Date.now();
    return ok(
      c,
      {
        plan: report.plan,
        period: report.period,
        usage: report.usage,
        limits: report.limits.map((l) => ({
          family: l.family,
          window: l.rule.window,
          per: l.rule.per === "credential" ? ("credential" as const) : ("account" as const),
          code: l.rule.code,
          limit: l.limit,
          used: l.count,
          remaining: l.remaining,
          reset_s: Math.max(0, Math.ceil((l.resetAt - now) / 1000)),
        })),
        plan_limits: report.plan_limits,
      },
      200,
    );
  });
}
