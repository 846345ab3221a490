import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import { originOf, toExportView, toShareView } from "../probes/index.js";
import type { ToolContext } from "./context.js";
import { guarded, toolResult } from "./tool-results.js";

const taskArgs = z.object({
  task_id: z.string().max(64).describe("The probe task's id (`task_…`), as a probe tool answered it"),
});
type TaskArgs = z.infer<typeof taskArgs>;

/**
 * Share links and export of the caller's probe tasks: the share and export routes' service with the same
 * rules (`POST`/`DELETE /v1/probe/tasks/{id}/share`, `GET /v1/probe/tasks/{id}/export`). Only the owner
 * publishes or revokes; another account's task, or an anonymous one, is `not_found`, as over HTTP.
 */
export function registerShareTools(server: McpServer, ctx: ToolContext): void {
  const owner = ctx.principal.userId;
  server.registerTool(
    "share_task",
    {
      title: "Share one of my probe tasks",
      description:
        "Publishes one of the calling account's probe tasks as a permanent, revocable share link (as `POST " +
        "/v1/probe/tasks/{id}/share`): `url` is a public read-only page anyone can open without credentials, " +
        "`json_url` the same as JSON. Sharing a shared task again answers its live link.",
      inputSchema: taskArgs,
      annotations: {
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: false,
      },
    },
    (args: unknown) =>
      guarded(ctx.log, "share_task", async () => {
        const { task_id } = args as TaskArgs;
        const share = await ctx.shares.publish(task_id, owner);
        const view = toShareView(share, originOf(ctx.http, ctx.publicUrl));
        return toolResult({ task_id, ...view }, `task ${task_id} is shared at ${view.url}`);
      }),
  );

  server.registerTool(
    "revoke_share",
    {
      title: "Revoke a probe task's share link",
      description:
        "Revokes the share link of one of the calling account's probe tasks (as `DELETE " +
        "/v1/probe/tasks/{id}/share`): its page and JSON answer 404 from now on. No live share → `not_found`.",
      inputSchema: taskArgs,
      annotations: {
        readOnlyHint: false,
        destructiveHint: true,
        idempotentHint: false,
        openWorldHint: false,
      },
    },
    (args: unknown) =>
      guarded(ctx.log, "revoke_share", async () => {
        const { task_id } = args as TaskArgs;
        await ctx.shares.revoke(task_id, owner);
        return toolResult({ task_id, revoked: true }, `the share link of task ${task_id} is revoked`);
      }),
  );

  server.registerTool(
    "export_task",
    {
      title: "Export a probe task",
      description:
        "A probe task as a self-contained JSON document (as `GET /v1/probe/tasks/{id}/export`): the task, the " +
        "probe spec, each node's metadata and public key, the agent release and each result's signature, " +
        "enough to archive it and check it offline (`vantage verify <file>`).",
      inputSchema: taskArgs,
      annotations: { readOnlyHint: true },
    },
    (args: unknown) =>
      guarded(ctx.log, "export_task", async () => {
        const { task_id } = args as TaskArgs;
        const doc = toExportView(await ctx.shares.export(task_id, owner, ctx.form));
        return toolResult(doc, JSON.stringify(doc));
      }),
  );
}
