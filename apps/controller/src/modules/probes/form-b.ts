import { z } from "@hono/zod-openapi";
import type { ProbeType } from "@vantage/probes";
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
import type { TaskRecord } from "./repo.js";
import type { ProbeInput } from "./request.js";
import { resultSchemas, toApiResult } from "./result-schemas.js";
import {
  hostPort,
  pastedDomainField,
  pastedHostField,
  serverField,
  splitHostPort,
  urlField,
} from "./target-fields.js";

/**
 * Form B: flat bodies; the answer waits for every node: `{task_id, status: "done", results[]}`. Every type
 * also takes `nodes` (the spec shows it on http only).
 */

const common = { nodes: nodeIdsField.optional(), ...nodeChoiceFields };
const seconds = (max: number, dflt: number) =>
  z
    .number()
    .int()
    .min(1)
    .max(max)
    .openapi({ description: `Seconds, 1–${max}, default ${dflt}` });

export const formBBodies = {
  http: z
    .strictObject({
      url: urlField,
      method: methodField.optional(),
      timeout: seconds(30, 10).optional(),
      follow_redirects: followRedirectsField.optional(),
      max_redirects: maxRedirectsField.optional(),
      headers: requestHeadersField.optional(),
      body: requestBodyField.optional(),
      keyword: keywordField.optional(),
      ip_family: ipFamilyField.optional(),
      http2: http2Field.optional(),
      ...common,
    })
    .superRefine(checkHttpOptions),
  ping: z.strictObject({
    host: pastedHostField,
    count: z.number().int().min(1).max(10).optional().openapi({ description: "1–10, default 4" }),
    timeout: seconds(30, 5).optional(),
    size: pingSizeField.optional(),
    dont_fragment: dontFragmentField.optional(),
    pmtu: pmtuField.optional(),
    ...common,
  }),
  dns: z
    .strictObject({
      domain: pastedDomainField,
      record_type: recordTypeField.optional(),
      server: serverField.optional(),
      protocol: dnsOptionFields.protocol.optional(),
      doh_method: dnsOptionFields.doh_method.optional(),
      dnssec: dnsOptionFields.dnssec.optional(),
      checking_disabled: dnsOptionFields.checking_disabled.optional(),
      nsid: dnsOptionFields.nsid.optional(),
      trace: dnsOptionFields.trace.optional(),
      ...common,
    })
    .superRefine(checkDnsOptions),
  tcp: z.strictObject({
    host: z
      .string()
      .min(1)
      .max(2048)
      .openapi({
        description:
          "Host name or IP. `host:port`, `[v6]:port` or a URL is taken too: its host is used, and a port it " +
          "names must equal `port`",
        example: "example.com",
      }),
    port: portField,
    timeout: seconds(30, 5).optional(),
    ...common,
  }),
  traceroute: z.strictObject({
    host: pastedHostField,
    max_hops: z.number().int().min(1).max(64).optional().openapi({ description: "1–64, default 30" }),
    ...common,
  }),
  mtr: z.strictObject({ host: pastedHostField, ...mtrOptionFields, ...common }).superRefine(checkMtrOptions),
} satisfies Record<ProbeType, z.ZodType>;

type Bodies = { [K in ProbeType]: z.infer<(typeof formBBodies)[K]> };

const ms = (s: number | undefined) => (s === undefined ? undefined : s * 1000);
const strip = (h: string) => (h.startsWith("[") && h.endsWith("]") ? h.slice(1, -1) : h);

function request(
  type: ProbeType,
  target: string,
  field: string,
  params: Record<string, unknown>,
  nodes?: string[],
) {
  const paths = { target: `body.${field}`, server: "body.server", nodes: "nodes" };
  return { spec: buildSpec(type, params), target, nodeIds: nodes, paths } satisfies ProbeInput;
}

/** Form B body → the internal probe request. */
const fromFormBBodies: { [K in ProbeType]: (b: Bodies[K]) => ProbeInput } = {
  http: (b) =>
    request(
      "http",
      b.url,
      "url",
      {
        url: b.url,
        method: b.method,
        timeout_ms: ms(b.timeout),
        follow_redirects: b.follow_redirects,
        max_redirects: b.max_redirects,
        headers: b.headers,
        body: b.body,
        keyword: b.keyword,
        ip_version: ipVersionOf(b.ip_family),
        http2: b.http2,
      },
      b.nodes,
    ),
  ping: (b) =>
    request(
      "ping",
      b.host,
      "host",
      {
        host: strip(b.host),
        count: b.count,
        timeout_ms: ms(b.timeout),
        size: b.size,
        dont_fragment: b.dont_fragment,
        pmtu: b.pmtu,
      },
      b.nodes,
    ),
  dns: (b) =>
    request(
      "dns",
      b.domain,
      "domain",
      {
        domain: b.domain,
        record_type: b.record_type,
        server: b.server,
        protocol: b.protocol,
        doh_method: b.doh_method,
        dnssec: b.dnssec,
        checking_disabled: b.checking_disabled,
        nsid: b.nsid,
        trace: b.trace,
      },
      b.nodes,
    ),
  // The stored target names the port too, as Form A's `host:port` does.
  tcp: (b) => {
    const { host, port } = splitHostPort(b.host, b.port, { target: "body.host", port: "body.port" });
    return request("tcp", hostPort(host, port), "host", { host, port, timeout_ms: ms(b.timeout) }, b.nodes);
  },
  traceroute: (b) =>
    request("traceroute", b.host, "host", { host: strip(b.host), max_hops: b.max_hops }, b.nodes),
  mtr: ({ host, nodes, ...options }) =>
    request("mtr", host, "host", { host: strip(host), ...options }, nodes),
};

/** With `locations` and `reuse` (node-choice.ts). */
export const fromFormB = withNodeChoice(fromFormBBodies, "nodes");

export function formBDoneSchema(type: ProbeType) {
  return z.object({
    task_id: z.string().openapi({ example: "task_mhb0v3k2x9a1b2c3d4e5f6a7" }),
    status: z.literal("done"),
    results: z
      .array(resultSchemas[type])
      .openapi({ description: "One entry per node, failed ones included" }),
  });
}

export function toFormB(task: TaskRecord) {
  return { task_id: task.id, status: "done" as const, results: task.results.map(toApiResult) };
}
