import { randomInt } from "node:crypto";
import * as dnsPacket from "dns-packet";
import { elapsedMs, now } from "./clock.js";
import { formatValue, fqdn } from "./dns-format.js";
import { parseServer, systemResolver } from "./dns-server-address.js";
import { queryTcp, queryUdp } from "./dns-transport.js";
import { settle } from "./outcome.js";
import { resolveAndCheck } from "./target-guard.js";
import { type DnsParams, type DnsResult, dnsParamsSchema, type Probe, type ProbeContext } from "./types.js";

/** EDNS0 buffer size dig and the DNS flag day 2020 settled on: avoids IP fragmentation. */
const EDNS_UDP_SIZE = 1232;

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
  const id = randomInt(0, 65_536);
  const packet = dnsPacket.encode({
    type: "query",
    id,
    flags: dnsPacket.RECURSION_DESIRED,
    questions: [{ type: params.record_type, class: "IN", name: params.domain.replace(/\.$/, "") }],
    additionals: [
      {
        type: "OPT",
        name: ".",
        udpPayloadSize: EDNS_UDP_SIZE,
        extendedRcode: 0,
        ednsVersion: 0,
        flags: 0,
        flag_do: false,
        options: [],
      },
    ],
  });
  const exchange = {
    address: resolved.address,
    family: resolved.family,
    port: server.port,
    timeoutMs: params.timeout_ms,
    signal,
  };
  // Query time spans everything the caller waited for: the truncated UDP round trip and the TCP retry.
  const started = now();
  let response = await queryUdp(packet, id, exchange);
  const truncated = response.flag_tc;
  let protocol: DnsResult["protocol"] = "udp";
  if (truncated) {
    protocol = "tcp";
    response = await queryTcp(packet, id, exchange);
  }
  const query_time_ms = elapsedMs(started);
  return {
    resolver: resolved.address,
    resolver_port: server.port,
    protocol,
    rcode: (response as { rcode?: string }).rcode ?? "UNKNOWN",
    truncated,
    query_time_ms,
    answers: (response.answers ?? [])
      .filter((a) => a.type !== "OPT")
      .map((a) => ({
        name: fqdn(a.name),
        type: a.type,
        ttl: "ttl" in a && typeof a.ttl === "number" ? a.ttl : 0,
        value: formatValue(a),
      })),
  };
}
