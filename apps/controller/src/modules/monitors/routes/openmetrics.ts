import { createRoute, z } from "@hono/zod-openapi";
import type { Context, MiddlewareHandler } from "hono";
import type { Kysely } from "kysely";
import type { Database } from "../../../db/schema.js";
import { requirePrincipal } from "../../../http/auth.js";
import type { AppEnv } from "../../../http/context.js";
import { envelope, errorResponses, jsonContent, ok } from "../../../http/envelope.js";
import { notFound } from "../../../http/errors.js";
import { securedRoute } from "../../../http/route-kit.js";
import type { Router } from "../../../http/router.js";
import type { ApiForm } from "../../../http/security.js";
import {
  type MetricsTokenInfo,
  OPENMETRICS_TYPE,
  ownerFigures,
  ownerOfToken,
  renderOpenMetrics,
  revokeToken,
  rotateToken,
  tokenInfo,
} from "../openmetrics.js";

const PATH = "/v1/metrics-token";
const time = (description: string) => z.string().openapi({ description, format: "date-time" });

const infoSchema = z
  .object({
    prefix: z.string().openapi({ description: "The token's first characters, to recognise it" }),
    created_at: time("Made"),
    last_used_at: time("Last scrape").nullable(),
  })
  .openapi("MetricsToken");
const createdSchema = infoSchema
  .extend({ token: z.string().openapi({ description: "The token: shown this once, stored as its SHA-256" }) })
  .openapi("MetricsTokenCreated");

const view = (i: MetricsTokenInfo) => ({
  prefix: i.prefix,
  created_at: i.created_at.toISOString(),
  last_used_at: i.last_used_at?.toISOString() ?? null,
});

/**
 * The per-account OpenMetrics endpoint and its token (a Vantage extension, the same in both forms): the
 * token is managed with the account's credentials; the scrape takes only the token.
 */
export function registerOpenMetricsRoutes(
  app: Router,
  db: Kysely<Database>,
  auth: MiddlewareHandler<AppEnv>,
  form: ApiForm,
  now: () => number,
): void {
  const common = securedRoute("monitors", form, auth);
  app.openapi(
    createRoute({
      ...common,
      method: "post",
      path: PATH,
      summary: "Make the account's OpenMetrics scrape token (replacing the old one)",
      description:
        "The token is answered once; only its SHA-256 is stored. Give it to Prometheus as " +
        "`authorization: { credentials: vmt_… }` for `GET /v1/openmetrics`. A new token replaces the old at once.",
      responses: {
        201: { description: "The new token", ...jsonContent(envelope(createdSchema)) },
        ...errorResponses(401, 403),
      },
    }),
    async (c) => {
      const t = await rotateToken(db, requirePrincipal(c).userId);
      return ok(c, { ...view(t), token: t.token }, 201);
    },
  );
  app.openapi(
    createRoute({
      ...common,
      method: "get",
      path: PATH,
      summary: "The account's OpenMetrics token: its prefix and last use",
      description: "404 when the account has none.",
      responses: {
        200: { description: "The token's facts", ...jsonContent(envelope(infoSchema)) },
        ...errorResponses(401, 403, 404),
      },
    }),
    async (c) => {
      const i = await tokenInfo(db, requirePrincipal(c).userId);
      if (!i) throw notFound("metrics token");
      return ok(c, view(i), 200);
    },
  );
  app.openapi(
    createRoute({
      ...common,
      method: "delete",
      path: PATH,
      summary: "Revoke the account's OpenMetrics token",
      description: "Scrapes with it are refused (401) at once. 404 when the account has none.",
      responses: {
        200: { description: "Revoked", ...jsonContent(envelope(z.null())) },
        ...errorResponses(401, 403, 404),
      },
    }),
    async (c) => {
      if (!(await revokeToken(db, requirePrincipal(c).userId))) throw notFound("metrics token");
      return ok(c, null, 200);
    },
  );
  app.openapi(
    createRoute({
      tags: ["monitors"],
      method: "get",
      path: "/v1/openmetrics",
      summary: "Every monitor of the account in the OpenMetrics text format, for Prometheus",
      description:
        "Vantage extension, both forms. Credentials: the account's metrics token only (`Authorization: " +
        "Bearer vmt_…`, see `POST /v1/metrics-token`); anything else → 401. Per monitor (labels `monitor_id`, " +
        "`name`, `type`): `vantage_monitor_up` (1 up, 0 down, NaN unknown), `vantage_monitor_latency_seconds` " +
        '(median of the newest run\'s passing nodes), `vantage_monitor_uptime_ratio{window="24h"}`.',
      responses: {
        200: {
          description: "The exposition",
          content: { "application/openmetrics-text": { schema: z.string() } },
        },
        ...errorResponses(401),
      },
    }),
    (async (c: Context<AppEnv>) => {
      const owner = await ownerOfToken(db, c.req.header("authorization"));
      const body = renderOpenMetrics(await ownerFigures(db, owner, new Date(now())));
      return c.body(body, 200, { "content-type": OPENMETRICS_TYPE, "cache-control": "no-store" });
    }) as never,
  );
}
