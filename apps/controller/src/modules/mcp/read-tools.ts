import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { probeTypes } from "@vantage/probes";
import { z } from "zod";
import { pageFieldsA, pageFieldsB } from "../../http/page-schemas.js";
import { type LookupRouteSpec, lookupSpecs } from "../lookups/index.js";
import { listQueryA, listQueryB, monitorIdParam, toMonitorA, toMonitorB } from "../monitors/index.js";
import { TASKS_PAGE_SIZE, toTaskSummaryView } from "../probes/index.js";
import { lookupArguments } from "./arguments.js";
import type { ToolContext } from "./context.js";
import { guarded, toolResult } from "./tool-results.js";

const lookupTools = {
  lookup_ip: "ip",
  lookup_whois: "whois",
  lookup_ssl: "ssl",
  lookup_dns: "dns",
  lookup_icp: "icp",
  ip_reputation: "reputation",
} as const;

const readOnly = { readOnlyHint: true } as const;

/**
 * The lookups (the HTTP routes' query schemas and mappings), the node list, and the caller's monitors and
 * probe tasks.
 */
export function registerReadTools(server: McpServer, ctx: ToolContext): void {
  const specs = lookupSpecs(ctx.form);
  for (const [name, kind] of Object.entries(lookupTools)) {
    const spec: LookupRouteSpec = specs[kind];
    const args = lookupArguments(spec);
    server.registerTool(
      name,
      {
        title: spec.summary,
        description: `${spec.summary}. ${spec.description} Arguments: \`target\`${kind === "ssl" ? ", `port`" : ""}${kind === "dns" ? ", `record_type`" : ""}, as the query of \`GET ${spec.path}\` takes them. Counts against the account's ${kind === "reputation" ? "reputation" : "lookup"} limits.`,
        inputSchema: args.schema,
        annotations: { ...readOnly, openWorldHint: kind !== "ip" },
      },
      (raw: unknown) =>
        guarded(ctx.log, name, async () => {
          const answer = await ctx.lookups.lookup(
            spec.kind,
            spec.input(args.toQuery(raw), ctx.http),
            ctx.caller,
            args.fieldNames,
          );
          const data = { ...answer.data, ...spec.extra, cached: answer.cached };
          return toolResult(data, JSON.stringify(data));
        }),
    );
  }

  server.registerTool(
    "list_nodes",
    {
      title: "List probe nodes",
      description:
        "Every known probe node with its country, region, provider, capabilities and online status.",
      annotations: readOnly,
    },
    () =>
      guarded(ctx.log, "list_nodes", async () => {
        const items = await ctx.nodes.list();
        const lines = items.map(
          (n) => `${n.id} (${n.name}): ${n.status}, ${n.country} ${n.region} ${n.provider}`,
        );
        return toolResult({ items }, lines.length ? lines.join("\n") : "no probe nodes known");
      }),
  );

  const view = (m: Parameters<typeof toMonitorA>[0]): Record<string, unknown> =>
    ctx.form === "a" ? toMonitorA(m) : toMonitorB(m);
  server.registerTool(
    "list_monitors",
    {
      title: "List my monitors",
      description: `The calling account's monitors, newest first, a page at a time (as \`GET /v1/monitors\`; ${ctx.form === "a" ? "`page`, `limit`" : "`page`, `per_page`"}).`,
      inputSchema: (ctx.form === "a" ? listQueryA : listQueryB) as z.ZodObject,
      annotations: readOnly,
    },
    (args: unknown) =>
      guarded(ctx.log, "list_monitors", async () => {
        const q = args as { page: number; limit?: number; per_page?: number };
        const limit = q.limit ?? q.per_page ?? 20;
        const { items, total } = await ctx.monitors.list(ctx.principal, { page: q.page, limit });
        const page = ctx.form === "a" ? { page: q.page, limit } : { page: q.page, per_page: limit };
        const views = items.map(view);
        const lines = items.map((m) => `${m.id} ${m.name}: ${m.type} ${m.target}`);
        return toolResult(
          { items: views, total, ...page },
          [`${total} monitor(s); page ${q.page}:`, ...lines].join("\n"),
        );
      }),
  );

  server.registerTool(
    "get_monitor",
    {
      title: "Get one of my monitors",
      description:
        "One of the calling account's monitors by id, with its state (as `GET /v1/monitors/{id}`).",
      inputSchema: monitorIdParam,
      annotations: readOnly,
    },
    (args: unknown) =>
      guarded(ctx.log, "get_monitor", async () => {
        const m = await ctx.monitors.get(ctx.principal, (args as { id: string }).id);
        const data = view(m);
        return toolResult(data, JSON.stringify(data));
      }),
  );

  server.registerTool(
    "list_tasks",
    {
      title: "List my probe tasks",
      description: `The calling account's probe tasks, newest first, a page at a time, without their results (as \`GET /v1/probe/tasks\`; ${ctx.form === "a" ? "`page`, `limit`" : "`page`, `per_page`"}, optional \`type\`): each with its status, how many nodes it was sent to and how many succeeded, and its live share link's id or null. Tasks made without credentials belong to no one and are not listed.`,
      // Strict, as the route refuses an unknown query parameter: Form B's `per_page` in Form A is an error.
      inputSchema: z.strictObject({
        ...(ctx.form === "a" ? pageFieldsA(TASKS_PAGE_SIZE) : pageFieldsB(TASKS_PAGE_SIZE)),
        type: z.enum(probeTypes).optional().describe("Only tasks of this probe type"),
      }),
      annotations: readOnly,
    },
    (args: unknown) =>
      guarded(ctx.log, "list_tasks", async () => {
        const q = args as { page: number; limit?: number; per_page?: number; type?: string };
        const limit = q.limit ?? q.per_page ?? TASKS_PAGE_SIZE;
        const { items, total } = await ctx.probes.list(ctx.principal.userId, {
          page: q.page,
          limit,
          type: q.type,
        });
        const page = ctx.form === "a" ? { page: q.page, limit } : { page: q.page, per_page: limit };
        const views = items.map((t) => toTaskSummaryView(t, ctx.form));
        const lines = views.map(
          (t) =>
            `${t.task_id} ${t.type} ${t.target}: ${t.status}, ${t.succeeded}/${t.nodes} node(s) ok` +
            (t.share_id ? `, shared as ${t.share_id}` : ""),
        );
        return toolResult(
          { items: views, total, ...page },
          [`${total} task(s); page ${q.page}:`, ...lines].join("\n"),
        );
      }),
  );
}
