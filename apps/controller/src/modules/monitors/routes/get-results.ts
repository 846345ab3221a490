import { createRoute, z } from "@hono/zod-openapi";
import { requirePrincipal } from "../../../http/auth.js";
import { envelope, errorResponses, jsonContent, ok } from "../../../http/envelope.js";
import type { SecuredRoute } from "../../../http/route-kit.js";
import type { Router } from "../../../http/router.js";
import type { MonitorResultsService, RunResult } from "../results-service.js";
import { idParam, staleGap } from "../schemas.js";
import { toGapView } from "../views.js";

const nodeRun = z.object({
  node_id: z.string(),
  success: z.boolean().openapi({ description: "The node's probe succeeded and the monitor's checks held" }),
  latency_ms: z.number().nullable(),
  error_code: z.string().nullable().openapi({ description: "Why the node failed; null when it passed" }),
  status_code: z
    .number()
    .int()
    .optional()
    .openapi({
      description:
        "Extension, http monitors: the HTTP status the node was answered with (e.g. 500 with `unexpected_status`); " +
        "absent when no answer came and for other types",
    }),
});

const runResult = z
  .object({
    slot: z.string().openapi({ description: "The run's scheduled time (ISO 8601 UTC)", format: "date-time" }),
    success: z.boolean().openapi({ description: "Strictly more than half of the nodes passed" }),
    nodes: z.array(nodeRun),
  })
  .openapi("MonitorRunResult");

const resultsSchema = z.object({
  monitor_id: z.string(),
  items: z.array(runResult),
  gaps: z.array(staleGap).openapi({
    description:
      "Extension, both forms: where the list has no runs because none completed (a stale spell, issue #29): " +
      "no data from `from` to `to` (null: still going on) and why. The spells from the oldest run listed on " +
      "(all of them when the list holds every stored run), newest first as the items; empty when none",
  }),
});

const resultsQuery = z.object({
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(100)
    .default(20)
    .openapi({ description: "Runs, 1–100, default 20" }),
});

const resultsRoute = (common: SecuredRoute) =>
  createRoute({
    ...common,
    method: "get",
    path: "/v1/monitors/{id}/results",
    summary: "A monitor's newest runs, per node",
    description:
      "One item per run (slot), newest first, with every node's outcome. A run passes when strictly more " +
      "than half of its nodes pass (a tie fails). Raw runs are kept `VANTAGE_MONITOR_RETENTION_DAYS` " +
      "(default 7). Slots with no completed run have no item: `gaps` names those stretches. Another " +
      "account's id → 404, as an unknown one. The same in both forms.",
    request: { params: idParam, query: resultsQuery },
    responses: {
      200: { description: "The newest runs", ...jsonContent(envelope(resultsSchema)) },
      ...errorResponses(400, 401, 403, 404),
    },
  });

export const toRunView = (r: RunResult) => ({
  slot: r.slot.toISOString(),
  success: r.success,
  nodes: r.nodes,
});

/** `GET /v1/monitors/{id}/results?limit=`. */
export function registerGetResults(app: Router, svc: MonitorResultsService, common: SecuredRoute): void {
  app.openapi(resultsRoute(common), async (c) => {
    const { id } = c.req.valid("param");
    const list = await svc.results(requirePrincipal(c).userId, id, c.req.valid("query").limit);
    return ok(c, { monitor_id: id, items: list.runs.map(toRunView), gaps: list.gaps.map(toGapView) }, 200);
  });
}
