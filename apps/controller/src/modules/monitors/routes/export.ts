import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { requirePrincipal } from "../../../http/auth.js";
import type { AppEnv } from "../../../http/context.js";
import { errorResponses } from "../../../http/envelope.js";
import { fieldError } from "../../../http/errors.js";
import type { SecuredRoute } from "../../../http/route-kit.js";
import type { Router } from "../../../http/router.js";
import { exportFormatOf, exportTypes } from "../export.js";
import type { MonitorResultsService } from "../results-service.js";
import { idParam } from "../schemas.js";

const when = (description: string) =>
  z.iso
    .datetime({ offset: true, message: "must be an ISO 8601 date-time with a zone (Z or ±hh:mm)" })
    .optional()
    .openapi({ description, example: "2026-11-28T00:00:00Z" });

const exportQuery = z.object({
  format: z.enum(["ndjson", "csv"]).optional().openapi({
    description: "ndjson or csv; without it the `Accept` header decides (text/csv → csv), else ndjson",
  }),
  from: when("Runs with a slot at or after this; default: the oldest kept"),
  to: when("Runs with a slot before this; default: now"),
});

/** `GET /v1/monitors/{id}/export`: the same in both forms (a Vantage extension, issue #29). */
export function registerExport(app: Router, svc: MonitorResultsService, common: SecuredRoute): void {
  app.openapi(
    createRoute({
      ...common,
      method: "get",
      path: "/v1/monitors/{id}/export",
      summary: "A monitor's runs as NDJSON or CSV, streamed, for any time range",
      description:
        "Vantage extension, both forms. One line per node and run, oldest first: `slot`, `node_id`, `success`, " +
        "`latency_ms`, `error_code`, `status_code` (CSV: a header line, RFC 4180). Streamed in pages as read, " +
        "so any range works; raw runs are kept `VANTAGE_MONITOR_RETENTION_DAYS` (default 7). `from` not " +
        "before `to` → 400. Another account's id → 404.",
      request: { params: idParam, query: exportQuery },
      responses: {
        200: {
          description: "The runs",
          content: {
            "application/x-ndjson": { schema: z.string() },
            "text/csv": { schema: z.string() },
          },
        },
        ...errorResponses(400, 401, 403, 404),
      },
    }),
    (async (c: Context<AppEnv>) => {
      const q = (c.req as unknown as { valid(t: "query"): z.infer<typeof exportQuery> }).valid("query");
      const from = q.from ? new Date(q.from) : new Date(0);
      const to = q.to ? new Date(q.to) : new Date();
      if (from.getTime() >= to.getTime()) throw fieldError("query.from", "must be before `to`");
      const format = exportFormatOf(q.format, c.req.header("accept"));
      const stream = await svc.export(
        requirePrincipal(c).userId,
        c.req.param("id") ?? "",
        { from, to },
        format,
      );
      return new Response(stream, {
        status: 200,
        headers: {
          "content-type": exportTypes[format],
          "cache-control": "no-store",
          "content-disposition": `attachment; filename="${c.req.param("id")}.${format}"`,
        },
      });
    }) as never,
  );
}
