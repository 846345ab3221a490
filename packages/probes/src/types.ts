import * as z from "zod";
import { en } from "zod/locales";

// The schemas the agent uses (here, @vantage/protocol's messages, the agent's config) are written with the
// part of zod's API that zod/mini has too (functions and `.check(…)`, no chained methods such as
// `.optional()` or `.min()`): the agent's bundle builds them with zod/mini (88 kB of zod in the bundle
// instead of ~500 kB: apps/agent/build.mjs); everything else, the controller included, gets full zod.
// `pnpm typecheck` checks these files against zod/mini's types too (apps/agent/tsconfig.zod-mini.json).
// zod/mini loads no locale (the full API loads English): set here, where the shared schemas are built, so
// both builds report the same words.
z.config(en());

/**
 * The internal probe model: what the controller sends in a job and what an agent sends back. Both API forms
 * map onto it; the NATS protocol carries it. Times are milliseconds with sub-millisecond precision.
 */
export const probeTypes = ["http", "ping", "dns", "tcp", "traceroute", "mtr"] as const;
export type ProbeType = (typeof probeTypes)[number];

export const dnsRecordTypes = ["A", "AAAA", "MX", "TXT", "NS", "CNAME", "SOA"] as const;
export const dnsProtocols = ["udp", "tcp", "tls", "https"] as const;
/** A dns `trace` follows at most this many delegations (the root, a TLD and a few levels below fit). */
export const TRACE_MAX_DEPTH = 16;
/** The whole `trace` may take this many times `timeout_ms`; each query waits at most `timeout_ms` of it. */
export const TRACE_BUDGET_FACTOR = 4;
export type DnsRecordType = (typeof dnsRecordTypes)[number];

const ipVersion = z.union([z.literal(4), z.literal(6)]);

export const httpMethods = ["GET", "HEAD", "POST", "PUT", "DELETE", "OPTIONS", "PATCH"] as const;
/** The methods whose requests may carry `body`. */
export const httpBodyMethods: readonly string[] = ["POST", "PUT", "PATCH", "DELETE"];

export const HTTP_MAX_REQUEST_HEADERS = 20;
export const HTTP_MAX_REQUEST_HEADER_VALUE = 1024;
export const HTTP_MAX_REQUEST_BODY_BYTES = 64 * 1024;
export const HTTP_MAX_KEYWORD = 256;
/** How much of the final response's body a `keyword` check reads (and searches). */
export const HTTP_KEYWORD_SCAN_BYTES = 1024 * 1024;

/**
 * Request headers the probe sets itself or that make no sense on its one-request connection: framing
 * (Content-Length, Transfer-Encoding, Expect), the URL's own host (Host), hop-by-hop ones (Connection,
 * Keep-Alive, TE, Trailer, Upgrade), Accept-Encoding (bodies are read as sent, never decompressed: the
 * excerpt and `keyword` would see compressed bytes) and any `Proxy-*` (there is no proxy to read them).
 */
export const refusedRequestHeaders: readonly string[] = [
  "host",
  "content-length",
  "transfer-encoding",
  "expect",
  "connection",
  "keep-alive",
  "te",
  "trailer",
  "upgrade",
  "accept-encoding",
];
const tokenPattern = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** Visible ASCII, space and tab: no CR, LF or other control characters. */
const headerValuePattern = /^[\t\x20-\x7e]*$/;

/** Why a request header name is refused, or undefined; `seen` collects the names so far, lower-cased. */
function headerNameProblem(name: string, seen: Set<string>): string | undefined {
  const lower = name.toLowerCase();
  if (name.length > 128 || !tokenPattern.test(name))
    return "header names are HTTP tokens of 1–128 characters: letters, digits, !#$%&'*+-.^_`|~";
  if (refusedRequestHeaders.includes(lower) || lower.startsWith("proxy-"))
    return "header not allowed (set by the probe, hop-by-hop, Accept-Encoding or Proxy-*)";
  if (seen.has(lower)) return "header name repeats another (names are case-insensitive)";
  seen.add(lower);
  return undefined;
}

export const httpRequestHeadersSchema = z
  .record(
    z.string(),
    z
      .string()
      .check(
        z.maxLength(HTTP_MAX_REQUEST_HEADER_VALUE),
        z.regex(headerValuePattern, "header values must be visible ASCII, spaces or tabs (no CR/LF)"),
      ),
  )
  .check(
    z.superRefine((headers, ctx) => {
      const names = Object.keys(headers);
      if (names.length > HTTP_MAX_REQUEST_HEADERS)
        ctx.addIssue({ code: "custom", message: `at most ${HTTP_MAX_REQUEST_HEADERS} headers` });
      const seen = new Set<string>();
      for (const name of names) {
        const message = headerNameProblem(name, seen);
        if (message !== undefined) ctx.addIssue({ code: "custom", path: [name], message });
      }
    }),
  );

export const httpRequestBodySchema = z.string().check(
  z.maxLength(HTTP_MAX_REQUEST_BODY_BYTES),
  z.refine(
    (body) => new TextEncoder().encode(body).length <= HTTP_MAX_REQUEST_BODY_BYTES,
    `at most ${HTTP_MAX_REQUEST_BODY_BYTES} bytes as UTF-8`,
  ),
);

export const httpKeywordSchema = z.string().check(z.minLength(1), z.maxLength(HTTP_MAX_KEYWORD));

/**
 * The rules between http params, one message per offending field: shared with the controller's request
 * bodies so both refuse the same requests in the same words. `method` absent means GET.
 */
export function httpParamsConflicts(p: {
  method?: string | undefined;
  body?: string | undefined;
  keyword?: string | undefined;
}): { field: "body" | "keyword"; message: string }[] {
  const method = p.method ?? "GET";
  const out: { field: "body" | "keyword"; message: string }[] = [];
  if (p.body !== undefined && !httpBodyMethods.includes(method))
    out.push({ field: "body", message: `only with method ${httpBodyMethods.join(", ")}, not ${method}` });
  if (p.keyword !== undefined && method === "HEAD")
    out.push({ field: "keyword", message: "needs a response body: not with method HEAD" });
  return out;
}

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

/**
 * What one probe run yields. `latency_ms` is the headline figure per type (http total, ping avg RTT, dns
 * query time, tcp connect time, traceroute RTT to the target), null when there is none.
 * `detail` is present whenever the probe got far enough to say something (even on failure).
 */
export interface ProbeOutcome<T extends ProbeType = ProbeType> {
  success: boolean;
  latency_ms: number | null;
  error: ProbeError | null;
  detail: ProbeResultByType[T] | null;
}

/** Every address a name has, as `dns.lookup(host, { all: true })` gives them (family 0 = either). */
export type HostLookup = (host: string, family: 0 | 4 | 6) => Promise<{ address: string; family: number }[]>;

export interface ProbeContext {
  /** Lifts the target guard (tests, private deployments). */
  allowPrivate: boolean;
  signal?: AbortSignal;
  /** Replaces the system resolver (getaddrinfo); tests use it to stand in a resolver that never answers. */
  lookup?: HostLookup;
  /** Root server addresses a dns `trace` starts from (default: VANTAGE_DNS_ROOTS, else IANA's roots). */
  dnsRoots?: readonly string[];
  /**
   * Hears a progressive probe's result so far (today mtr's, after each round: the hops with their running
   * statistics, in the final result's shape), for live streams. At most one call per round; never after
   * the probe has returned. Probes that are not progressive ignore it.
   */
  onProgress?: (detail: Record<string, unknown>) => void;
}

/** The one shape every probe file exports. */
export interface Probe<T extends ProbeType> {
  type: T;
  paramsSchema: z.core.$ZodType;
  run(params: Extract<ProbeJobSpec, { type: T }>["params"], ctx: ProbeContext): Promise<ProbeOutcome<T>>;
}
