import { createRoute, z } from "@hono/zod-openapi";
import { requirePrincipal } from "../../../http/auth.js";
import { envelope, errorResponses, jsonContent, ok } from "../../../http/envelope.js";
import type { SecuredRoute } from "../../../http/route-kit.js";
import type { Router } from "../../../http/router.js";
import {
  type MonitorResultsService,
  UPTIME_WINDOWS,
  type Uptime,
  type UptimeWindow,
} from "../results-service.js";
import { idParam, staleGap } from "../schemas.js";
import { toGapView } from "../views.js";

const windows = Object.keys(UPTIME_WINDOWS) as [UptimeWindow, ...UptimeWindow[]];
const time = (description: string) => z.string().openapi({ description, format: "date-time" });

const uptimeSchema = z
  .object({
    window: z.enum(windows),
    from: time("Start of the window: now minus the window, rounded down to the hour"),
    to: time("End of the window: now"),
    runs: z.number().int(),
    failures: z
      .number()
      .int()
      .openapi({ description: "Runs where at most half of the nodes passed, outside maintenance windows" }),
    maintenance: z
      .object({
        seconds: z.number().int().openapi({ description: "Time of the window inside maintenance windows" }),
        runs: z.number().int().openapi({ description: "Runs inside them (raw runs: the retention days)" }),
        failures: z
          .number()
          .int()
          .openapi({ description: "Failing runs inside them: not counted as downtime" }),
      })
      .openapi({ description: "Extension: maintenance windows inside the window (issue #29)" }),
    uptime_percent: z.number().nullable().openapi({ description: "Passing runs in %; null without runs" }),
    latency_p50_ms: z.number().nullable().openapi({ description: "Median latency of passing nodes" }),
    latency_p95_ms: z.number().nullable(),
    state: z.enum(["unknown", "up", "down"]),
    state_changed_at: time("When the state last changed").nullable(),
    unknown_ms: z
      .number()
      .int()
      .openapi({
        description:
          "Extension, both forms: time in the window with no completed run (a stale spell: no run for two " +
          "intervals), counted neither up nor down; `uptime_percent` is over the runs that were made",
      }),
    unknown_percent: z.number().openapi({ description: "Extension: `unknown_ms` as % of the window" }),
    gaps: z
      .array(staleGap)
      .openapi({ description: "Extension: the stale spells overlapping the window, oldest first" }),
    nodes: z
      .array(
        z.object({
          node_id: z.string(),
          state: z
            .enum(["up", "down"])
            .openapi({ description: "The node's newest run in the window passed (up) or not" }),
          last_slot: time("That run's slot"),
          error_code: z.string().nullable(),
          status_code: z.number().int().optional().openapi({
            description:
              "Extension, http monitors: the HTTP status that run was answered with, when one came",
          }),
          location: z
            .object({ country: z.string(), region: z.string(), provider: z.string() })
            .optional()
            .openapi({
              description:
                "Extension: where the node is (per-location state of a monitor run from several locations)",
            }),
        }),
      )
      .openapi({
        description: "Per node, its newest run in the window; the overall state is the majority rule's",
      }),
  })
  .openapi("MonitorUptime");

const uptimeQuery = z.object({
  window: z.enum(windows).default("24h").openapi({ description: "24h (default), 7d or 30d" }),
});

const uptimeRoute = (common: SecuredRoute) =>
  createRoute({
    ...common,
    method: "get",
    path: "/v1/monitors/{id}/uptime",
    summary: "A monitor's uptime and latency over a window",
    description:
      "Runs, failing runs (at most half of the nodes passed), uptime and latency percentiles of the passing " +
      "nodes over the window, from hourly roll-ups plus the runs not rolled up yet; the percentiles of the " +
      "parts are combined weighted by their runs (an approximation). Another account's id → 404, as an " +
      "unknown one. The same in both forms.",
    request: { params: idParam, query: uptimeQuery },
    responses: {
      200: { description: "Uptime over the window", ...jsonContent(envelope(uptimeSchema)) },
      ...errorResponses(400, 401, 403, 404),
    },
  });

export const toUptimeView = (u: Uptime) => ({
  ...u,
  from: u.from.toISOString(),
  to: u.to.toISOString(),
  state_changed_at: u.state_changed_at?.toISOString() ?? null,
  gaps: u.gaps.map(toGapView),
  nodes: u.nodes.map((n) => ({ ...n, last_slot: n.last_slot.toISOString() })),
});

/** `GET /v1/monitors/{id}/uptime?window=`. */
export function registerGetUptime(app: Router, svc: MonitorResultsService, common: SecuredRoute): void {
  app.openapi(uptimeRoute(common), async (c) => {
    const { id } = c.req.valid("param");
    const u = await svc.uptime(requirePrincipal(c).userId, id, c.req.valid("query").window);
    return ok(c, toUptimeView(u), 200);
  });
}
