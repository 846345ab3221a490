import * as z from "zod";
import { en } from "zod/locales";
import {
  httpKeywordSchema,
  httpMethods,
  httpParamsConflicts,
  httpRequestBodySchema,
  httpRequestHeadersSchema,
} from "./http-request-params.js";

// The schemas the agent uses (here, @vantage/protocol's messages, the agent's config) are written with the
// part of zod's API that zod/mini has too (functions and `.check(…)`, no chained methods such as
// `.optional()` or `.min()`): the agent's bundle builds them with zod/mini (88 kB of zod in the bundle
// instead of ~500 kB: apps/agent/build.mjs); everything else, the controller included, gets full zod.
// `pnpm typecheck` checks these files against zod/mini's types too (apps/agent/tsconfig.zod-mini.json).
// zod/mini loads no locale (the full API loads English): set here, where the shared schemas are built, so
// both builds report the same words.
z.config(en());

export const dnsRecordTypes = ["A", "AAAA", "MX", "TXT", "NS", "CNAME", "SOA"] as const;
export const dnsProtocols = ["udp", "tcp", "tls", "https"] as const;
/** A dns `trace` follows at most this many delegations (the root, a TLD and a few levels below fit). */
export const TRACE_MAX_DEPTH = 16;
/** The whole `trace` may take this many times `timeout_ms`; each query waits at most `timeout_ms` of it. */
export const TRACE_BUDGET_FACTOR = 4;
export type DnsRecordType = (typeof dnsRecordTypes)[number];

const ipVersion = z.union([z.literal(4), z.literal(6)]);

/** A string of `min`–`max` characters. */
const text = (min: number, max: number) => z.string().check(z.minLength(min), z.maxLength(max));
/** A safe integer from `min` to `max`. */
const integer = (min: number, max: number) => z.int().check(z.gte(min), z.lte(max));
/** A safe integer from `min` to `max`, `fallback` when absent. */
const integerOr = (min: number, max: number, fallback: number) => z._default(integer(min, max), fallback);

export const httpParamsSchema = z
  .object({
    url: z.url().check(z.maxLength(2048)),
    method: z._default(z.enum(httpMethods), "GET"),
    timeout_ms: integerOr(100, 30_000, 10_000),
    follow_redirects: z._default(z.boolean(), false),
    max_redirects: integerOr(0, 10, 5),
    ip_version: z.optional(ipVersion),
    /** Sent with the request, replacing the probe's own User-Agent or Accept of the same name. */
    headers: z.optional(httpRequestHeadersSchema),
    body: z.optional(httpRequestBodySchema),
    /** Case-sensitive substring searched in the first HTTP_KEYWORD_SCAN_BYTES of the final body. */
    keyword: z.optional(httpKeywordSchema),
    /** Offer HTTP/2 by ALPN (https only); the result's `http_version` says which was used. */
    http2: z.optional(z.boolean()),
  })
  .check(
    z.superRefine((p, ctx) => {
      for (const { field, message } of httpParamsConflicts(p))
        ctx.addIssue({ code: "custom", path: [field], message });
    }),
  );
export const PING_MIN_SIZE = 28;
export const PING_MAX_SIZE = 1500;
/** Most echoes a `pmtu` search sends: a binary search over 68–1500 takes 11, the first try one more. */
export const PMTU_MAX_PROBES = 12;

export const pingParamsSchema = z.object({
  host: text(1, 253),
  count: integerOr(1, 50, 4),
  timeout_ms: integerOr(100, 30_000, 5000),
  interval_ms: integerOr(10, 5000, 200),
  ip_version: z.optional(ipVersion),
  /**
   * Each echo's whole IP packet in bytes, headers included (`ping -s size-28` on IPv4, `size-48` on IPv6;
   * IPv6 packets are at least 48 bytes). Absent: 84 / 104 (56 bytes of data, as ping).
   */
  size: z.optional(integer(PING_MIN_SIZE, PING_MAX_SIZE)),
  /** DF set and no fragmenting at the node (true), or DF clear (false); absent: the system's default. */
  dont_fragment: z.optional(z.boolean()),
  /** After the echoes, search the largest packet (up to `size`, default 1500) that passes with DF. */
  pmtu: z.optional(z.boolean()),
});
export const dnsParamsSchema = z
  .object({
    domain: text(1, 253),
    record_type: z._default(z.enum(dnsRecordTypes), "A"),
    /**
     * `host` or `host:port` (IPv6 as `[addr]:port`; port 53, 853 over TLS); with protocol `https` the DoH URL;
     * omitted = the system resolver.
     */
    server: z.optional(text(1, 2048)),
    timeout_ms: integerOr(100, 30_000, 5000),
    /** `udp` (absent: TCP when truncated), `tcp`, `tls` (DoT, RFC 7858) or `https` (DoH, RFC 8484). */
    protocol: z.optional(z.enum(dnsProtocols)),
    /** DoH only: POST (default) or GET. */
    doh_method: z.optional(z.enum(["POST", "GET"])),
    /** EDNS DO bit: ask for DNSSEC records (`dig +dnssec`). */
    dnssec: z.optional(z.boolean()),
    /** CD flag: ask the resolver not to validate (`dig +cdflag`). */
    checking_disabled: z.optional(z.boolean()),
    /** EDNS NSID option: ask the server to name itself (`dig +nsid`). */
    nsid: z.optional(z.boolean()),
    /** Resolve iteratively from the root servers, as `dig +trace` (no `server`, UDP/TCP only). */
    trace: z.optional(z.boolean()),
  })
  .check(
    z.superRefine((p, ctx) => {
      for (const { field, message } of dnsParamsConflicts(p))
        ctx.addIssue({ code: "custom", path: [field], message });
    }),
  );

/**
 * The rules between dns params, one message per offending field: shared with the controller's request
 * bodies so both refuse the same requests in the same words.
 */
export function dnsParamsConflicts(p: {
  server?: string | undefined;
  protocol?: string | undefined;
  doh_method?: string | undefined;
  trace?: boolean | undefined;
}): { field: "server" | "protocol" | "doh_method"; message: string }[] {
  const out: { field: "server" | "protocol" | "doh_method"; message: string }[] = [];
  const url = p.server !== undefined && /^[a-z][a-z0-9+.-]*:\/\//i.test(p.server);
  if (p.trace) {
    if (p.server !== undefined)
      out.push({ field: "server", message: "not with trace: it starts at the roots" });
    if (p.protocol === "tls" || p.protocol === "https")
      out.push({ field: "protocol", message: "trace asks the authoritative servers over udp or tcp only" });
  }
  if (p.protocol === "https") {
    if (p.server === undefined)
      out.push({ field: "server", message: "protocol https needs the DoH URL here" });
    else if (!/^https:\/\//i.test(p.server))
      out.push({
        field: "server",
        message: "with protocol https: an https:// URL (e.g. https://dns.example/dns-query)",
      });
  } else if (url) {
    out.push({ field: "server", message: "a URL only with protocol https (DoH); else host or host:port" });
  }
  if (p.doh_method !== undefined && p.protocol !== "https")
    out.push({ field: "doh_method", message: "only with protocol https" });
  return out;
}
export const tcpParamsSchema = z.object({
  host: text(1, 253),
  port: integer(1, 65_535),
  timeout_ms: integerOr(100, 30_000, 5000),
  ip_version: z.optional(ipVersion),
});
export const tracerouteParamsSchema = z.object({
  host: text(1, 253),
  max_hops: integerOr(1, 64, 30),
  /** Wait for each probe's answer. */
  timeout_ms: integerOr(100, 10_000, 1000),
  queries_per_hop: integerOr(1, 5, 3),
  ip_version: z.optional(ipVersion),
});

/** mtr's three ways of sending: ICMP echo (`mtr`), UDP (`mtr -u`), TCP SYN (`mtr -T`). */
export const mtrModes = ["icmp", "udp", "tcp"] as const;
export const MTR_MAX_ROUNDS = 100;
export const mtrParamsSchema = z.object({
  host: text(1, 253),
  mode: z._default(z.enum(mtrModes), "icmp"),
  /** Destination port: tcp default 80, udp default 33434 (each UDP probe has its own source port). */
  port: z.optional(integer(1, 65_535)),
  /** Rounds of probes, one probe per hop each (mtr `-c`). */
  rounds: integerOr(1, MTR_MAX_ROUNDS, 10),
  max_hops: integerOr(1, 64, 30),
  /** Time between the starts of two rounds (mtr `-i`). */
  interval_ms: integerOr(100, 5000, 1000),
  /** Wait for each probe's answer; a later answer counts as lost. At most `interval_ms`. */
  timeout_ms: integerOr(100, 5000, 1000),
  ip_version: z.optional(ipVersion),
});

export const probeJobSpecSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("http"), params: httpParamsSchema }),
  z.object({ type: z.literal("ping"), params: pingParamsSchema }),
  z.object({ type: z.literal("dns"), params: dnsParamsSchema }),
  z.object({ type: z.literal("tcp"), params: tcpParamsSchema }),
  z.object({ type: z.literal("traceroute"), params: tracerouteParamsSchema }),
  z.object({ type: z.literal("mtr"), params: mtrParamsSchema }),
]);
export type ProbeJobSpec = z.infer<typeof probeJobSpecSchema>;
export type HttpParams = z.infer<typeof httpParamsSchema>;
export type PingParams = z.infer<typeof pingParamsSchema>;
export type DnsParams = z.infer<typeof dnsParamsSchema>;
export type TcpParams = z.infer<typeof tcpParamsSchema>;
export type TracerouteParams = z.infer<typeof tracerouteParamsSchema>;
export type MtrParams = z.infer<typeof mtrParamsSchema>;
