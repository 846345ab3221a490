import { createRoute, z } from "@hono/zod-openapi";
import { envelope, errorResponses, jsonContent, ok } from "../../../http/envelope.js";
import type { SecuredRoute } from "../../../http/route-kit.js";
import type { Router } from "../../../http/router.js";
import type { SharesService } from "../shares.js";
import { type TaskDocument, taskDocumentShape } from "../task-document.js";

const exportSchema = z
  .object({
    format: z.literal("vantage-task/1"),
    exported_at: z.string().openapi({ description: "ISO 8601 UTC" }),
    ...taskDocumentShape,
  })
  .openapi("ProbeTaskExport");

/** The export's body: the task document under its format name and the time of export (route and MCP). */
export function toExportView(doc: TaskDocument) {
  return { format: "vantage-task/1" as const, exported_at: new Date().toISOString(), ...doc };
}

/** `GET /v1/probe/tasks/{id}/export`: the same contract in both forms (an extension). */
export function registerExportTask(app: Router, shares: SharesService, common: SecuredRoute): void {
  const { form } = common;
  app.openapi(
    createRoute({
      ...common,
      method: "get",
      path: "/v1/probe/tasks/{id}/export",
      summary: "Export a probe task as a self-contained JSON document",
      description:
        "The task view, the probe spec the nodes ran, each node's metadata (location, provider, public key, the " +
        "agent release that ran the probe) and each result's signature: enough to archive the task and check " +
        "it offline (`vantage verify <file>`). Readable by whoever may read the task (as `GET " +
        "/v1/probe/tasks/{id}`).",
      request: { params: z.object({ id: z.string().max(64) }) },
      responses: {
        200: { description: "The task document", ...jsonContent(envelope(exportSchema)) },
        ...errorResponses(401, 404, 429),
      },
    }),
    async (c) => {
      const doc = await shares.export(c.req.valid("param").id, c.get("principal")?.userId, form);
      c.header("Content-Disposition", `attachment; filename="${doc.task.task_id}.json"`);
      return ok(c, toExportView(doc), 200);
    },
  );
}
