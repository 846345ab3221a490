import { queryDns } from "./dns-query.js";
import { parseServer, systemResolver } from "./dns-server-address.js";
import { traceDns } from "./dns-trace.js";
import { settle } from "./outcome.js";
import { ProbeFailure } from "./probe-failure.js";
import { type DnsParams, dnsParamsSchema } from "./probe-params.js";
import type { DnsResult } from "./probe-results.js";
import { resolveAndCheck } from "./target-guard.js";
import type { Probe, ProbeContext } from "./types.js";

/**
 * One query like `dig @server domain TYPE`: UDP first, TCP when the answer comes back truncated; or over
 * TCP, TLS (DoT) or HTTPS (DoH) alone; or, with `trace`, iteratively from the roots (`dig +trace`).
 */
export const dnsProbe: Probe<"dns"> = {
  type: "dns",
  paramsSchema: dnsParamsSchema,
  run: (params, ctx) =>
    settle<"dns">(async () => {
      const detail = params.trace ? await traceDns(params, ctx) : await query(params, ctx);
      return { detail, latency_ms: detail.query_time_ms };
    }),
};

/** The DoH URL's host and port (443 unless it names one). */
function dohServer(url: string): { host: string; port: number } {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new ProbeFailure("invalid_target", `bad DoH URL ${url}`);
  }
  if (u.protocol !== "https:")
    throw new ProbeFailure("invalid_target", `DoH needs an https:// URL, not ${url}`);
  return { host: u.hostname.replace(/^\[(.*)\]$/, "$1"), port: u.port === "" ? 443 : Number(u.port) };
}

async function query(params: DnsParams, ctx: ProbeContext): Promise<DnsResult> {
  const { signal } = ctx;
  const protocol = params.protocol ?? "udp";
  // The guard covers resolvers the caller names; the node's own resolver (often 127.0.0.53 or a private
  // address) is the operator's choice, not a target, so it is used as configured.
  const server =
    protocol === "https"
      ? dohServer(params.server ?? "")
      : params.server
        ? parseServer(params.server, protocol === "tls" ? 853 : 53)
        : await systemResolver();
  if (!params.server && protocol === "tls") server.port = 853;
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
    dnssecOk: params.dnssec,
    checkingDisabled: params.checking_disabled,
    nsid: params.nsid,
    transport: protocol,
    // SNI: the name the server was given by, never an address.
    servername: resolved.address === server.host ? undefined : server.host,
    url: params.server,
    method: params.doh_method,
  });
  const extended = params.dnssec || params.checking_disabled || params.nsid || protocol !== "udp";
  return {
    resolver: resolved.address,
    resolver_port: server.port,
    protocol: answer.protocol,
    rcode: answer.rcode,
    truncated: answer.truncated,
    query_time_ms: answer.query_time_ms,
    answers: answer.answers,
    // Only for requests that use the new options: results of plain queries keep their old shape.
    ...(extended ? { flags: answer.flags } : {}),
    ...(answer.nsid === undefined ? {} : { nsid: answer.nsid }),
    ...(answer.tls === undefined ? {} : { tls: answer.tls }),
  };
}
