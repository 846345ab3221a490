import { queryDns } from "./dns-query.js";
import { parseServer, systemResolver } from "./dns-server-address.js";
import { settle } from "./outcome.js";
import { resolveAndCheck } from "./target-guard.js";
import { type DnsParams, type DnsResult, dnsParamsSchema, type Probe, type ProbeContext } from "./types.js";

/** One query like `dig @server domain TYPE`: UDP first, TCP when the answer comes back truncated. */
export const dnsProbe: Probe<"dns"> = {
  type: "dns",
  paramsSchema: dnsParamsSchema,
  run: (params, ctx) =>
    settle<"dns">(async () => {
      const detail = await query(params, ctx);
      return { detail, latency_ms: detail.query_time_ms };
    }),
};

async function query(params: DnsParams, ctx: ProbeContext): Promise<DnsResult> {
  const { signal } = ctx;
  // The guard covers resolvers the caller names; the node's own resolver (often 127.0.0.53 or a private
  // address) is the operator's choice, not a target, so it is used as configured.
  const server = params.server ? parseServer(params.server) : await systemResolver();
  // A server given by name is looked up within the probe's timeout_ms, and the abort stops that wait too.
  const resolved = await resolveAndCheck(server.host, {
    allowPrivate: ctx.allowPrivate || !params.server,
    timeoutMs: params.timeout_ms,
    signal,
    lookup: ctx.lookup,
  });
  const answer = await queryDns({
    name: params.domain,
    type: params.record_type,
    address: resolved.address,
    family: resolved.family,
    port: server.port,
    timeoutMs: params.timeout_ms,
    signal,
  });
  return {
    resolver: resolved.address,
    resolver_port: server.port,
    protocol: answer.protocol,
    rcode: answer.rcode,
    truncated: answer.truncated,
    query_time_ms: answer.query_time_ms,
    answers: answer.answers,
  };
}
