import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { ProbeType } from "@vantage/probes";
import type { z } from "zod";
import {
  type ApiResult,
  formABodies,
  formBBodies,
  fromFormA,
  fromFormB,
  type ProbeInput,
  toApiResult,
} from "../probes/index.js";
import { probeArgumentsB } from "./arguments.js";
import type { ToolContext } from "./context.js";
import { guarded, toolResult } from "./tool-results.js";

const descriptions: Record<ProbeType, string> = {
  http: "HTTP(S) request to a URL from probe nodes: status code, timings, TLS certificate.",
  ping: "ICMP ping of a host from probe nodes: packet loss and round-trip times.",
  dns: "DNS query for a domain from probe nodes: answers with TTLs, rcode, query time.",
  tcp: "TCP connect to host:port from probe nodes: connect time.",
  traceroute: "Traceroute to a host from probe nodes: hops and their round-trip times.",
  mtr:
    "mtr to a host from probe nodes (ICMP, UDP or TCP): per hop loss %, sent, last/avg/best/worst/stdev " +
    "over N rounds, every address seen, and each hop's ASN, network and country; the AS path.",
};

const choiceNote =
  '(or `locations`, e.g. ["germany+hetzner", {"selector": "asia", "count": 2}], or `reuse` of an earlier ' +
  "task id; docs/node-selection.md)";

const formNote = {
  a: `Arguments as the HTTP API's Form A body: \`target\`, optional \`node_ids\` ${choiceNote}, optional \`params\`.`,
  b:
    `Arguments as the HTTP API's Form B body (flat fields), optional \`nodes\` ${choiceNote}, except that what ` +
    "to probe is `target` as in every tool (the body's `url`, `host` or `domain` are still accepted, deprecated).",
};

const probeTypes = [
  "http",
  "ping",
  "dns",
  "tcp",
  "traceroute",
  "mtr",
] as const satisfies readonly ProbeType[];

/** One line per node: how the target did from there. */
export function summarize(type: ProbeType, target: string, results: readonly ApiResult[]): string {
  const lines = results.map((r) => {
    const where = `${r.node_id} (${r.node_name})`;
    if (!r.success) {
      const why = r.error ? `${r.error.code}: ${r.error.message}` : "failed";
      return `${where}: failed, ${why}`;
    }
    const detail = [
      r.latency_ms === null ? undefined : `${r.latency_ms} ms`,
      typeof r.status_code === "number" ? `HTTP ${r.status_code}` : undefined,
      typeof r.pmtu === "number" ? `path MTU ${r.pmtu} bytes` : undefined,
    ].filter((x) => x !== undefined);
    return `${where}: ok${detail.length ? `, ${detail.join(", ")}` : ""}`;
  });
  return [`${type} ${target} from ${results.length} node(s):`, ...lines].join("\n");
}

/**
 * `probe_<type>`: the HTTP probe route's body schema of the active form as the tool's input (the SDK
 * validates with it), the same mapping to the internal model, and `probes.run`: the caller's account
 * quota is charged as for `POST /v1/probe/<type>`, and the answer waits for every node (each has its own
 * deadline), in both forms.
 */
export function registerProbeTools(server: McpServer, ctx: ToolContext): void {
  for (const type of probeTypes) {
    const body = (ctx.form === "a" ? formABodies[type] : formBBodies[type]) as z.ZodObject;
    // Form A's bodies name the target `target` already; Form B's (`url`, `host`, `domain`) are renamed.
    const args =
      ctx.form === "a"
        ? { schema: body, toBody: (a: unknown) => a, renamed: (e: unknown) => e }
        : probeArgumentsB(body);
    const toInput = (ctx.form === "a" ? fromFormA[type] : fromFormB[type]) as (b: unknown) => ProbeInput;
    server.registerTool(
      `probe_${type}`,
      {
        title: `${type} probe`,
        description: `${descriptions[type]} Runs to completion. ${formNote[ctx.form]} Counts against the account's node-probes-per-hour quota (one per node).`,
        inputSchema: args.schema,
        annotations: { readOnlyHint: true, openWorldHint: true },
      },
      (raw: unknown) =>
        guarded(ctx.log, `probe_${type}`, async () => {
          let task: Awaited<ReturnType<typeof ctx.probes.run>>["value"];
          try {
            const input = toInput(args.toBody(raw));
            task = (await ctx.probes.run({ ...input, caller: ctx.caller })).value;
          } catch (error) {
            throw args.renamed(error);
          }
          const results = task.results.map(toApiResult);
          return toolResult(
            { task_id: task.id, type, target: task.target, results },
            summarize(type, task.target, results),
          );
        }),
    );
  }
}
