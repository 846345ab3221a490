import { randomInt } from "node:crypto";
import type { RecordType } from "dns-packet";
import * as dnsPacket from "dns-packet";
import { elapsedMs, now } from "./clock.js";
import { formatValue, fqdn } from "./dns-format.js";
import { queryTcp, queryUdp } from "./dns-transport.js";

/*
 * The wire-level DNS client, one query like `dig @server name TYPE`, without the probe around it: the dns
 * probe and the DNS records lookup (packages/lookups) both use it. Reachable as `@vantage/probes/dns-query`,
 * which loads dgram, net and dns-packet only: never the ping module and its native raw socket.
 */

export { parseServer, type ServerAddress, systemResolver } from "./dns-server-address.js";
export { ProbeFailure } from "./probe-failure.js";
export { type DnsRecordType, dnsRecordTypes } from "./types.js";

/** EDNS0 buffer size dig and the DNS flag day 2020 settled on: avoids IP fragmentation. */
const EDNS_UDP_SIZE = 1232;

export interface DnsQuery {
  /** The name asked about; a trailing dot is optional. */
  name: string;
  type: RecordType;
  /** The resolver's IP address (already checked by the target guard where that applies). */
  address: string;
  family: 4 | 6;
  port: number;
  /** Longest wait for each exchange (the UDP one, then the TCP retry). */
  timeoutMs: number;
  signal?: AbortSignal | undefined;
}

export interface DnsAnswer {
  /** Owner name, fully qualified with its trailing dot. */
  name: string;
  type: string;
  ttl: number;
  /** RDATA as dig prints it (see dns-format.ts). */
  value: string;
}

export interface DnsQueryResult {
  protocol: "udp" | "tcp";
  rcode: string;
  /** The UDP answer came back truncated (TC), so the answer here is the TCP retry's. */
  truncated: boolean;
  /** From sending the query to the final answer, the truncated UDP round trip and the TCP retry included. */
  query_time_ms: number;
  /** The answer section, OPT records left out. */
  answers: DnsAnswer[];
}

/**
 * UDP first, TCP when the answer comes back truncated. Throws ProbeFailure: `timeout` (no answer within
 * `timeoutMs`, or `signal` aborted), `probe_error` (a malformed answer), an errno-derived code otherwise.
 */
export async function queryDns(q: DnsQuery): Promise<DnsQueryResult> {
  const id = randomInt(0, 65_536);
  const packet = dnsPacket.encode({
    type: "query",
    id,
    flags: dnsPacket.RECURSION_DESIRED,
    questions: [{ type: q.type, class: "IN", name: q.name.replace(/\.$/, "") }],
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
    address: q.address,
    family: q.family,
    port: q.port,
    timeoutMs: q.timeoutMs,
    signal: q.signal,
  };
  const started = now();
  let response = await queryUdp(packet, id, exchange);
  const truncated = response.flag_tc;
  let protocol: DnsQueryResult["protocol"] = "udp";
  if (truncated) {
    protocol = "tcp";
    response = await queryTcp(packet, id, exchange);
  }
  const query_time_ms = elapsedMs(started);
  return {
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
