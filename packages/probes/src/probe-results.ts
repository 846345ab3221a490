import * as z from "zod";
import { dnsProtocols, mtrModes } from "./probe-params.js";

/** Error codes a probe reports (snake_case, stable: API users match on them). */
export const probeErrorCodes = [
  "target_not_allowed",
  "dns_resolution_failed",
  "connection_refused",
  "host_unreachable",
  "network_unreachable",
  "timeout",
  "tls_error",
  "icmp_unavailable",
  "ipv6_unavailable",
  "resources_exhausted",
  "too_many_redirects",
  "packet_too_big",
  "invalid_target",
  "probe_error",
] as const;
export type ProbeErrorCode = (typeof probeErrorCodes)[number];

export const probeErrorSchema = z.object({ code: z.string(), message: z.string() });
export type ProbeError = z.infer<typeof probeErrorSchema>;

export const tlsSummarySchema = z.object({
  subject: z.string(),
  issuer: z.string(),
  valid_from: z.string(),
  valid_to: z.string(),
  san: z.array(z.string()),
  protocol: z.nullable(z.string()),
  cipher: z.nullable(z.string()),
  authorized: z.boolean(),
  authorization_error: z.nullable(z.string()),
  fingerprint_sha256: z.string(),
});

export const httpResultSchema = z.object({
  resolved_ip: z.nullable(z.string()),
  status_code: z.nullable(z.int()),
  headers: z.record(z.string(), z.string()),
  timings: z.object({
    dns: z.nullable(z.number()),
    connect: z.nullable(z.number()),
    tls: z.nullable(z.number()),
    first_byte: z.nullable(z.number()),
    /** First byte of the response to the end of the body as read; null when it did not end. */
    download: z.optional(z.nullable(z.number())),
    total: z.number(),
  }),
  /** With `http2`: the HTTP version ALPN settled, "2" or "1.1". */
  http_version: z.optional(z.string()),
  tls: z.nullable(tlsSummarySchema),
  /** The body's first 10 kB, decoded as UTF-8. */
  body_excerpt: z.string(),
  /**
   * True when the body went past the excerpt cap: the excerpt is not all of it. Reading stops there, or,
   * for the final response of a `keyword` check, at 1 MiB.
   */
  body_truncated: z.optional(z.boolean()),
  /**
   * The body's size in bytes as sent (after de-chunking, before any decompression). Read to the end: the bytes
   * received. Reading stopped early (at the excerpt cap, or at 1 MiB for a `keyword` check): the
   * Content-Length when the server declared one, else the bytes received before stopping, a lower bound
   * whose exact value depends on how the body was chunked (reading the rest only to count it would cost the
   * transfer the cap avoids). A failure midway (e.g. a timeout): the bytes received so far.
   */
  body_bytes: z.int(),
  /**
   * With `keyword` only: whether it occurs (case-sensitive) in the final response's body as read: to its end
   * or its first 1 MiB, decoded as UTF-8 (invalid bytes as U+FFFD). Absent when the exchange failed.
   */
  keyword_found: z.optional(z.boolean()),
  redirects: z.array(z.object({ url: z.string(), status_code: z.int() })),
});

export const pingResultSchema = z.object({
  resolved_ip: z.nullable(z.string()),
  packets_sent: z.int(),
  packets_received: z.int(),
  packet_loss: z.number(),
  rtt: z.nullable(z.object({ min: z.number(), avg: z.number(), max: z.number(), mdev: z.number() })),
  replies: z.array(z.object({ seq: z.int(), rtt_ms: z.nullable(z.number()), ttl: z.nullable(z.int()) })),
  /** With `size` or `dont_fragment`: each echo's IP packet size in bytes as sent. */
  packet_size: z.optional(z.int()),
  /** With `pmtu`: the largest packet in bytes that reached the target and got its reply with DF; null: none. */
  pmtu: z.optional(z.nullable(z.int())),
});

const dnsAnswerSchema = z.object({ name: z.string(), type: z.string(), ttl: z.int(), value: z.string() });

export const dnsTraceStepSchema = z.object({
  /** The zone this server answered for: `.` for a root, then each delegation's. */
  zone: z.string(),
  server: z.string(),
  /** The server's name as the referral gave it (null for a root given by address). */
  server_name: z.nullable(z.string()),
  rcode: z.string(),
  query_time_ms: z.number(),
  /** The NS names the answer delegates to (empty at the final answer). */
  referral: z.array(z.string()),
  answers: z.array(dnsAnswerSchema),
  /** Why this server gave no usable answer (timeout, refused…), when it did not; the next one was asked. */
  error: z.optional(z.string()),
});

export const dnsResultSchema = z.object({
  /** The resolver's IP address as queried. */
  resolver: z.string(),
  resolver_port: z.optional(z.int()),
  protocol: z.enum(dnsProtocols),
  rcode: z.string(),
  truncated: z.boolean(),
  query_time_ms: z.number(),
  answers: z.array(dnsAnswerSchema),
  /** Header flags of the answer as dig lists them (`qr`, `aa`, `rd`, `ra`, `ad`, `cd`). */
  flags: z.optional(z.array(z.string())),
  /** With `nsid`: the server's NSID (text, or hex when not printable); null when it sent none. */
  nsid: z.optional(z.nullable(z.string())),
  /** DoT and DoH: the server's certificate (trust reported, not enforced). */
  tls: z.optional(z.nullable(tlsSummarySchema)),
  /** With `trace`: each server asked, from a root to the answer. */
  trace: z.optional(z.array(dnsTraceStepSchema)),
});

export const tcpResultSchema = z.object({
  resolved_ip: z.nullable(z.string()),
  port: z.int(),
  connect_ms: z.nullable(z.number()),
});

export const tracerouteResultSchema = z.object({
  resolved_ip: z.nullable(z.string()),
  reached: z.boolean(),
  hops: z.array(
    z.object({
      hop: z.int(),
      ip: z.nullable(z.string()),
      hostname: z.nullable(z.string()),
      rtts: z.array(z.nullable(z.number())),
      /** The responder of each probe, parallel to `rtts` (load-balanced paths can differ per probe). */
      probe_ips: z.optional(z.array(z.nullable(z.string()))),
    }),
  ),
});

/** One hop of an mtr run: mtr's report columns, and every address that answered at that hop. */
export const mtrHopSchema = z.object({
  hop: z.int(),
  /** The address that answered most often at this hop (mtr's first line); null when none answered. */
  ip: z.nullable(z.string()),
  /** Every address that answered at this hop, most frequent first (ECMP paths show several). */
  ips: z.array(z.string()),
  sent: z.int(),
  received: z.int(),
  /** Lost probes in percent of sent, 0–100 with one decimal (mtr's Loss%). */
  loss_pct: z.number(),
  last: z.nullable(z.number()),
  avg: z.nullable(z.number()),
  best: z.nullable(z.number()),
  worst: z.nullable(z.number()),
  /** Standard deviation of the round-trip times (sample, n − 1, as mtr); null below two answers. */
  stdev: z.nullable(z.number()),
});

export const mtrResultSchema = z.object({
  resolved_ip: z.nullable(z.string()),
  mode: z.enum(mtrModes),
  /** Port probed (tcp and udp), null for icmp. */
  port: z.nullable(z.int()),
  /** Rounds completed (fewer than asked when the run was stopped at its deadline). */
  rounds: z.int(),
  reached: z.boolean(),
  hops: z.array(mtrHopSchema),
});

export type HttpResult = z.infer<typeof httpResultSchema>;
export type PingResult = z.infer<typeof pingResultSchema>;
export type DnsResult = z.infer<typeof dnsResultSchema>;
export type TcpResult = z.infer<typeof tcpResultSchema>;
export type TracerouteResult = z.infer<typeof tracerouteResultSchema>;
export type MtrResult = z.infer<typeof mtrResultSchema>;
export type MtrHop = z.infer<typeof mtrHopSchema>;

export interface ProbeResultByType {
  http: HttpResult;
  ping: PingResult;
  dns: DnsResult;
  tcp: TcpResult;
  traceroute: TracerouteResult;
  mtr: MtrResult;
}
