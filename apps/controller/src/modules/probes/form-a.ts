import { z } from "@hono/zod-openapi";
import type { ProbeType } from "@vantage/probes";
import { callbackUrlField } from "./callback.js";
import {
  buildSpec,
  checkDnsOptions,
  checkMtrOptions,
  dnsOptionFields,
  dontFragmentField,
  ipFamilyField,
  ipVersionOf,
  mtrOptionFields,
  nodeIdsField,
  pingSizeField,
  pmtuField,
  portField,
  recordTypeField,
} from "./fields.js";
import {
  checkHttpOptions,
  followRedirectsField,
  http2Field,
  keywordField,
  maxRedirectsField,
  methodField,
  requestBodyField,
  requestHeadersField,
} from "./http-option-fields.js";
import { nodeChoiceFields, withNodeChoice } from "./node-choice.js";
import type { ProbeInput } from "./request.js";
import {
  hostPort,
  pastedDomainField,
  pastedHostField,
  serverField,
  splitHostPort,
  urlField,
} from "./target-fields.js";

/** Form A: `{target, node_ids?, params?}`; the answer is `{task_id, task_ids, status: "queued"}`. */

const common = {
  node_ids: nodeIdsField.optional(),
  ...nodeChoiceFields,
  callback_url: callbackUrlField.optional(),
};
const timeoutMs = (min: number, dflt: number) =>
  z
    .number()
    .int()
    .min(min)
    .max(30_000)
    .openapi({ description: `Milliseconds, ${min}–30000, default ${dflt}` });

export const formABodies = {
  http: z.strictObject({
    target: urlField,
    ...common,
    params: z
      .strictObject({
        method: methodField.optional(),
        timeout_ms: timeoutMs(1000, 10_000).optional(),
        follow_redirects: followRedirectsField.optional(),
        max_redirects: maxRedirectsField.optional(),
        headers: requestHeadersField.optional(),
        body: requestBodyField.optional(),
        keyword: keywordField.optional(),
        ip_family: ipFamilyField.optional(),
        http2: http2Field.optional(),
      })
      .superRefine(checkHttpOptions)
      .optional(),
  }),
  ping: z.strictObject({
    target: pastedHostField,
    ...common,
    params: z
      .strictObject({
        count: z.number().int().min(1).max(50).optional().openapi({ description: "1–50, default 4" }),
        timeout_ms: timeoutMs(100, 5000).optional(),
        size: pingSizeField.optional(),
        dont_fragment: dontFragmentField.optional(),
        pmtu: pmtuField.optional(),
      })
      .optional(),
  }),
  dns: z.strictObject({
    target: pastedDomainField,
    ...common,
    params: z
      .strictObject({
        record_type: recordTypeField.optional(),
        server: serverField.optional(),
        protocol: dnsOptionFields.protocol.optional(),
        doh_method: dnsOptionFields.doh_method.optional(),
        dnssec: dnsOptionFields.dnssec.optional(),
        checking_disabled: dnsOptionFields.checking_disabled.optional(),
        nsid: dnsOptionFields.nsid.optional(),
        trace: dnsOptionFields.trace.optional(),
      })
      .superRefine(checkDnsOptions)
      .optional(),
  }),
  tcp: z.strictObject({
    target: z
      .string()
      .min(1)
      .max(2048)
      .openapi({
        description:
          "`host:port` (`[v6]:port`), or a host with params.port. A URL is taken too: its host, and its port " +
          "(else params.port, else its scheme's: 80 for http, 443 for https)",
        example: "example.com:443",
      }),
    ...common,
    params: z
      .strictObject({ port: portField.optional(), timeout_ms: timeoutMs(100, 5000).optional() })
      .optional(),
  }),
  traceroute: z.strictObject({
    target: pastedHostField,
    ...common,
    params: z
      .strictObject({
        max_hops: z.number().int().min(1).max(64).optional().openapi({ description: "1–64, default 30" }),
      })
      .optional(),
  }),
  mtr: z.strictObject({
    target: pastedHostField,
    ...common,
    params: z.strictObject(mtrOptionFields).superRefine(checkMtrOptions).optional(),
  }),
} satisfies Record<ProbeType, z.ZodType>;

type Bodies = { [K in ProbeType]: z.infer<(typeof formABodies)[K]> };

const strip = (h: string) => (h.startsWith("[") && h.endsWith("]") ? h.slice(1, -1) : h);
const paths = { target: "body.target", server: "body.params.server", nodes: "node_ids" };

function request(type: ProbeType, target: string, params: Record<string, unknown>, nodeIds?: string[]) {
  return { spec: buildSpec(type, params), target, nodeIds, paths } satisfies ProbeInput;
}

/** Form A body → the internal probe request. */
const fromFormABodies: { [K in ProbeType]: (b: Bodies[K]) => ProbeInput } = {
  http: (b) => {
    const { ip_family, ...params } = b.params ?? {};
    const spec = { url: b.target, ...params, ip_version: ipVersionOf(ip_family) };
    return request("http", b.target, spec, b.node_ids);
  },
  ping: (b) => request("ping", b.target, { host: strip(b.target), ...b.params }, b.node_ids),
  dns: (b) => request("dns", b.target, { domain: b.target, ...b.params }, b.node_ids),
  tcp: (b) => {
    const { host, port } = splitHostPort(b.target, b.params?.port);
    // The stored target names the port even when it came in params.port.
    return request("tcp", hostPort(host, port), { host, port, timeout_ms: b.params?.timeout_ms }, b.node_ids);
  },
  traceroute: (b) => request("traceroute", b.target, { host: strip(b.target), ...b.params }, b.node_ids),
  mtr: (b) => request("mtr", b.target, { host: strip(b.target), ...b.params }, b.node_ids),
};

/** With `locations` and `reuse` (node-choice.ts). */
export const fromFormA = withNodeChoice(fromFormABodies, "node_ids");

export const formACreatedSchema = z
  .object({
    task_id: z.string().openapi({ example: "task_mhb0v3k2x9a1b2c3d4e5f6a7" }),
    task_ids: z.array(z.string()),
    status: z.literal("queued"),
    callback_secret: z.string().optional().openapi({
      description:
        "With `callback_url` only: the `whsec_` secret its webhook is signed with (Standard Webhooks), shown once",
    }),
  })
  .openapi("ProbeTaskQueued");

export function toFormA(taskId: string, callbackSecret?: string) {
  return {
    task_id: taskId,
    task_ids: [taskId],
    status: "queued" as const,
    ...(callbackSecret ? { callback_secret: callbackSecret } : {}),
  };
}
