import { z } from "@hono/zod-openapi";
import {
  dnsResultSchema,
  httpResultSchema,
  mtrHopSchema,
  mtrResultSchema,
  type ProbeType,
  pingResultSchema,
  tcpResultSchema,
  tracerouteResultSchema,
} from "@vantage/probes";
import type { NodeResult } from "./dispatch.js";
import { asPathField, hopNetworkFields } from "./hop-networks.js";
import type { TaskRecord } from "./repo.js";

/**
 * One node's entry, the same in both forms: `node_id, node_name, success, latency_ms, error?` and, beside
 * them, the probe type's own fields (present when the probe got far enough to report them).
 */
const baseResult = {
  node_id: z.string().openapi({ example: "fra1" }),
  node_name: z.string().openapi({ example: "Frankfurt 1" }),
  success: z.boolean(),
  latency_ms: z
    .number()
    .nullable()
    .openapi({
      description:
        "Headline latency: http total time, ping average RTT, dns query time, tcp connect time, traceroute RTT " +
        "to the target, mtr average RTT at the target. null when nothing was measured.",
    }),
  error: z
    .object({
      code: z.string().openapi({
        description:
          "Node-level: node_offline, node_timeout, node_busy, node_error, incompatible_version, " +
          "probe_quarantined, transport_lost. Probe-level: " +
          "target_not_allowed, dns_resolution_failed, connection_refused, host_unreachable, " +
          "network_unreachable, timeout, tls_error, icmp_unavailable, ipv6_unavailable, resources_exhausted, " +
          "too_many_redirects, packet_too_big (ping with DF), invalid_target, probe_error.",
      }),
      message: z.string(),
    })
    .optional()
    .openapi({ description: "Present when success is false" }),
};

export const resultSchemas = {
  http: z
    .object({
      ...baseResult,
      ...httpResultSchema.partial().shape,
      keyword_found: httpResultSchema.shape.keyword_found.meta({
        description:
          "Only when the request had a keyword: whether the final response's body (its first 1 MiB, as UTF-8) " +
          "contains it, case-sensitive. Absent when the probe failed, and from agents older than keyword.",
      }),
    })
    .openapi("HttpProbeResult"),
  ping: z.object({ ...baseResult, ...pingResultSchema.partial().shape }).openapi("PingProbeResult"),
  dns: z.object({ ...baseResult, ...dnsResultSchema.partial().shape }).openapi("DnsProbeResult"),
  tcp: z.object({ ...baseResult, ...tcpResultSchema.partial().shape }).openapi("TcpProbeResult"),
  traceroute: z
    .object({
      ...baseResult,
      ...tracerouteResultSchema.partial().shape,
      hops: z.array(tracerouteResultSchema.shape.hops.element.extend(hopNetworkFields)).optional().openapi({
        description: "Hops in order; each with its network (ASN, name, country) from the IP data",
      }),
      as_path: asPathField,
    })
    .openapi("TracerouteProbeResult"),
  mtr: z
    .object({
      ...baseResult,
      ...mtrResultSchema.partial().shape,
      hops: z.array(mtrHopSchema.extend(hopNetworkFields)).optional().openapi({
        description: "Hops in order: mtr's report columns, every address seen, the network of `ip`",
      }),
      as_path: asPathField,
    })
    .openapi("MtrProbeResult"),
} satisfies Record<ProbeType, z.ZodType>;

export const anyResultSchema = z.union([
  resultSchemas.http,
  resultSchemas.ping,
  resultSchemas.dns,
  resultSchemas.tcp,
  resultSchemas.traceroute,
  resultSchemas.mtr,
]);

/** A result as the handlers build it: assignable to the entry of any type (the detail is the agent's). */
export type ApiResult = z.infer<typeof resultSchemas.http> &
  z.infer<typeof resultSchemas.ping> &
  z.infer<typeof resultSchemas.dns> &
  z.infer<typeof resultSchemas.tcp> &
  z.infer<typeof resultSchemas.traceroute> &
  z.infer<typeof resultSchemas.mtr>;

/** Probe detail first, the common fields last so a detail key can never shadow them. */
export function toApiResult(r: NodeResult): ApiResult {
  return {
    ...(r.detail ?? {}),
    node_id: r.node_id,
    node_name: r.node_name,
    success: r.success,
    latency_ms: r.latency_ms,
    ...(r.error ? { error: r.error } : {}),
  } as ApiResult;
}

export const taskStatusSchema = z.enum(["queued", "running", "done", "failed"]);

/** What a task's read and the account's list show of every task, before the results or their counts. */
export const taskHeadFields = {
  task_id: z.string().openapi({ example: "task_mhb0v3k2x9a1b2c3d4e5f6a7" }),
  type: z.enum(["http", "ping", "dns", "tcp", "traceroute", "mtr"]),
  target: z.string().openapi({ description: "The URL, host or domain probed, as given" }),
  status: taskStatusSchema.openapi({
    description:
      "queued → running → done, or failed when no node could run the probe (every entry has a node-level " +
      "error). A probe that ran and failed (e.g. connection refused) still ends done. Form B shows finished " +
      "tasks as done.",
  }),
  created_at: z.string().openapi({ description: "ISO 8601 UTC" }),
  finished_at: z.string().nullable(),
};

/** `GET /v1/probe/tasks/{id}` in both forms. */
export const taskViewSchema = z
  .object({
    ...taskHeadFields,
    results: z.array(anyResultSchema).openapi({ description: "One entry per node that has answered so far" }),
  })
  .openapi("ProbeTask");

/** The `taskHeadFields` of a task (Form B shows a finished task as `done`). */
export function toTaskHead(
  t: Pick<TaskRecord, "id" | "type" | "target" | "status" | "created_at" | "finished_at">,
  form: "a" | "b",
) {
  const finished = t.status === "done" || t.status === "failed";
  return {
    task_id: t.id,
    type: t.type as ProbeType,
    target: t.target,
    status: form === "b" && finished ? ("done" as const) : t.status,
    created_at: t.created_at.toISOString(),
    finished_at: t.finished_at ? t.finished_at.toISOString() : null,
  };
}

export function toTaskView(t: TaskRecord, form: "a" | "b") {
  return { ...toTaskHead(t, form), results: t.results.map(toApiResult) };
}
