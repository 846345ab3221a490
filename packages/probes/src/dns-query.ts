import { randomInt } from "node:crypto";
import type { RecordType } from "dns-packet";
import * as dnsPacket from "dns-packet";
import { elapsedMs, now } from "./clock.js";
import { formatValue, fqdn } from "./dns-format.js";
import { queryHttps, queryTls } from "./dns-secure.js";
import { queryTcp, queryUdp } from "./dns-transport.js";
import type { TlsSummary } from "./http-tls.js";

/*
 * The wire-level DNS client, one query like `dig @server name TYPE`, without the probe around it: the dns
 * probe and the DNS records lookup (packages/lookups) both use it. Reachable as `@vantage/probes/dns-query`,
 * which loads dgram, net and dns-packet only: never the ping module and its native raw socket.
 */

export { parseServer, type ServerAddress, systemResolver } from "./dns-server-address.js";
export { ProbeFailure } from "./probe-failure.js";
export { type DnsRecordType, dnsRecordTypes } from "./probe-params.js";

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
  /** EDNS DO bit (`dig +dnssec`): ask for DNSSEC records. */
  dnssecOk?: boolean | undefined;
  /** CD flag (`dig +cdflag`): the resolver should not validate. */
  checkingDisabled?: boolean | undefined;
  /** EDNS NSID option (`dig +nsid`, RFC 5001): ask the server to name itself. */
  nsid?: boolean | undefined;
  /** RD flag; default true. An iterative query (trace) clears it. */
  recursionDesired?: boolean | undefined;
  /**
   * `udp` (default: TCP when truncated), `tcp` only, `tls` (DNS over TLS, RFC 7858, `servername` for SNI)
   * or `https` (DNS over HTTPS, RFC 8484, to `url` by POST or GET).
   */
  transport?: DnsTransport | undefined;
  servername?: string | undefined;
  url?: string | undefined;
  method?: "POST" | "GET" | undefined;
}

export type DnsTransport = "udp" | "tcp" | "tls" | "https";

export interface DnsAnswer {
  /** Owner name, fully qualified with its trailing dot. */
  name: string;
  type: string;
  ttl: number;
  /** RDATA as dig prints it (see dns-format.ts). */
  value: string;
}

export interface DnsQueryResult {
  protocol: DnsTransport;
  rcode: string;
  /** The UDP answer came back truncated (TC), so the answer here is the TCP retry's. */
  truncated: boolean;
  /** From sending the query to the final answer, the truncated UDP round trip and the TCP retry included. */
  query_time_ms: number;
  /** The answer section, OPT records left out. */
  answers: DnsAnswer[];
  /** The header flags set in the answer, as dig lists them (`qr rd ra ad`…). */
  flags: string[];
  /** With `nsid`: what the server called itself (text, or hex when not printable); null when it did not. */
  nsid?: string | null;
  /** DoT and DoH: the server's certificate and the session (trust reported, not enforced). */
  tls?: TlsSummary | null;
  /** The whole decoded answer (authority and additional sections too), for callers that need them. */
  response: dnsPacket.DecodedPacket;
}

const flagNames = [
  ["flag_qr", "qr"],
  ["flag_aa", "aa"],
  ["flag_tc", "tc"],
  ["flag_rd", "rd"],
  ["flag_ra", "ra"],
  ["flag_ad", "ad"],
  ["flag_cd", "cd"],
] as const;

/** NSID's bytes as text when printable ASCII, else as hex (dig prints both). */
function nsidText(response: dnsPacket.DecodedPacket): string | null {
  for (const record of response.additionals ?? []) {
    if (record.type !== "OPT") continue;
    // dns-packet's types list only the option codes it can encode; NSID (3) comes back as raw data.
    const options = (record.options ?? []) as unknown as { code: number; data?: Buffer }[];
    const option = options.find((o) => o.code === 3);
    if (!option?.data) continue;
    const text = option.data.toString("latin1");
    return /^[\x20-\x7e]*$/.test(text) ? text : option.data.toString("hex");
  }
  return null;
}

/**
 * UDP first, TCP when the answer comes back truncated. Throws ProbeFailure: `timeout` (no answer within
 * `timeoutMs`, or `signal` aborted), `probe_error` (a malformed answer), an errno-derived code otherwise.
 */
export async function queryDns(q: DnsQuery): Promise<DnsQueryResult> {
  // DoH asks with id 0 (RFC 8484 §4.1: cache friendly); the answer is tied to its HTTP request instead.
  const id = q.transport === "https" ? 0 : randomInt(0, 65_536);
  const packet = dnsPacket.encode({
    type: "query",
    id,
    flags:
      (q.recursionDesired === false ? 0 : dnsPacket.RECURSION_DESIRED) |
      (q.checkingDisabled ? dnsPacket.CHECKING_DISABLED : 0),
    questions: [{ type: q.type, class: "IN", name: q.name.replace(/\.$/, "") }],
    additionals: [
      {
        type: "OPT",
        name: ".",
        udpPayloadSize: EDNS_UDP_SIZE,
        extendedRcode: 0,
        ednsVersion: 0,
        flags: q.dnssecOk ? dnsPacket.DNSSEC_OK : 0,
        flag_do: q.dnssecOk === true,
        options: q.nsid ? [{ code: 3, data: Buffer.alloc(0) } as unknown as dnsPacket.PacketOpt] : [],
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
  const transport = q.transport ?? "udp";
  let truncated = false;
  let protocol: DnsTransport = transport;
  let response: dnsPacket.DecodedPacket;
  let tls: TlsSummary | null | undefined;
  if (transport === "tls" || transport === "https") {
    const secure =
      transport === "tls"
        ? await queryTls(packet, id, { ...exchange, servername: q.servername })
        : await queryHttps(packet, { ...exchange, url: q.url ?? "", method: q.method ?? "POST" });
    response = secure.response;
    tls = secure.tls;
  } else if (transport === "tcp") {
    response = await queryTcp(packet, id, exchange);
  } else {
    response = await queryUdp(packet, id, exchange);
    truncated = response.flag_tc;
    if (truncated) {
      protocol = "tcp";
      response = await queryTcp(packet, id, exchange);
    }
  }
  const query_time_ms = elapsedMs(started);
  const flags = flagNames
    .filter(([key]) => (response as unknown as Record<string, unknown>)[key] === true)
    .map(([, n]) => n);
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
    flags,
    ...(q.nsid ? { nsid: nsidText(response) } : {}),
    ...(tls === undefined ? {} : { tls }),
    response,
  };
}
