import { z } from "zod";

/**
 * The internal probe model: what the controller sends in a job and what an agent sends back. Both API forms
 * map onto it; the NATS protocol carries it. Times are milliseconds with sub-millisecond precision.
 */
export const probeTypes = ["http", "ping", "dns", "tcp", "traceroute"] as const;
export type ProbeType = (typeof probeTypes)[number];

export const dnsRecordTypes = ["A", "AAAA", "MX", "TXT", "NS", "CNAME", "SOA"] as const;
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
      .max(HTTP_MAX_REQUEST_HEADER_VALUE)
      .regex(headerValuePattern, "header values must be visible ASCII, spaces or tabs (no CR/LF)"),
  )
  .superRefine((headers, ctx) => {
    const names = Object.keys(headers);
    if (names.length > HTTP_MAX_REQUEST_HEADERS)
      ctx.addIssue({ code: "custom", message: `at most ${HTTP_MAX_REQUEST_HEADERS} headers` });
    const seen = new Set<string>();
    for (const name of names) {
      const message = headerNameProblem(name, seen);
      if (message !== undefined) ctx.addIssue({ code: "custom", path: [name], message });
    }
  });

export const httpRequestBodySchema = z
  .string()
  .max(HTTP_MAX_REQUEST_BODY_BYTES)
  .refine(
    (body) => new TextEncoder().encode(body).length <= HTTP_MAX_REQUEST_BODY_BYTES,
    `at most ${HTTP_MAX_REQUEST_BODY_BYTES} bytes as UTF-8`,
  );

export const httpKeywordSchema = z.string().min(1).max(HTTP_MAX_KEYWORD);

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

export const httpParamsSchema = z
  .object({
    url: z.string().url().max(2048),
    method: z.enum(httpMethods).default("GET"),
    timeout_ms: z.number().int().min(100).max(30_000).default(10_000),
    follow_redirects: z.boolean().default(false),
    max_redirects: z.number().int().min(0).max(10).default(5),
    ip_version: ipVersion.optional(),
    /** Sent with the request, replacing the probe's own User-Agent or Accept of the same name. */
    headers: httpRequestHeadersSchema.optional(),
    body: httpRequestBodySchema.optional(),
    /** Case-sensitive substring searched in the first HTTP_KEYWORD_SCAN_BYTES of the final body. */
    keyword: httpKeywordSchema.optional(),
  })
  .superRefine((p, ctx) => {
    for (const { field, message } of httpParamsConflicts(p))
      ctx.addIssue({ code: "custom", path: [field], message });
  });
export const pingParamsSchema = z.object({
  host: z.string().min(1).max(253),
  count: z.number().int().min(1).max(50).default(4),
  timeout_ms: z.number().int().min(100).max(30_000).default(5000),
  interval_ms: z.number().int().min(10).max(5000).default(200),
  ip_version: ipVersion.optional(),
});
export const dnsParamsSchema = z.object({
  domain: z.string().min(1).max(253),
  record_type: z.enum(dnsRecordTypes).default("A"),
  /** `host` or `host:port` (IPv6 as `[addr]:port`); omitted = the system resolver. */
  server: z.string().min(1).max(260).optional(),
  timeout_ms: z.number().int().min(100).max(30_000).default(5000),
});
export const tcpParamsSchema = z.object({
  host: z.string().min(1).max(253),
  port: z.number().int().min(1).max(65_535),
  timeout_ms: z.number().int().min(100).max(30_000).default(5000),
  ip_version: ipVersion.optional(),
});
export const tracerouteParamsSchema = z.object({
  host: z.string().min(1).max(253),
  max_hops: z.number().int().min(1).max(64).default(30),
  /** Wait for each probe's answer. */
  timeout_ms: z.number().int().min(100).max(10_000).default(1000),
  queries_per_hop: z.number().int().min(1).max(5).default(3),
  ip_version: ipVersion.optional(),
});

export const probeJobSpecSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("http"), params: httpParamsSchema }),
  z.object({ type: z.literal("ping"), params: pingParamsSchema }),
  z.object({ type: z.literal("dns"), params: dnsParamsSchema }),
  z.object({ type: z.literal("tcp"), params: tcpParamsSchema }),
  z.object({ type: z.literal("traceroute"), params: tracerouteParamsSchema }),
]);
export type ProbeJobSpec = z.infer<typeof probeJobSpecSchema>;
export type HttpParams = z.infer<typeof httpParamsSchema>;
export type PingParams = z.infer<typeof pingParamsSchema>;
export type DnsParams = z.infer<typeof dnsParamsSchema>;
export type TcpParams = z.infer<typeof tcpParamsSchema>;
export type TracerouteParams = z.infer<typeof tracerouteParamsSchema>;

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
  "too_many_redirects",
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
  protocol: z.string().nullable(),
  cipher: z.string().nullable(),
  authorized: z.boolean(),
  authorization_error: z.string().nullable(),
  fingerprint_sha256: z.string(),
});

export const httpResultSchema = z.object({
  resolved_ip: z.string().nullable(),
  status_code: z.number().int().nullable(),
  headers: z.record(z.string(), z.string()),
  timings: z.object({
    dns: z.number().nullable(),
    connect: z.number().nullable(),
    tls: z.number().nullable(),
    first_byte: z.number().nullable(),
    total: z.number(),
  }),
  tls: tlsSummarySchema.nullable(),
  /** The body's first 10 kB, decoded as UTF-8. */
  body_excerpt: z.string(),
  /**
   * True when the body went past the excerpt cap: the excerpt is not all of it. Reading stops there, or,
   * for the final response of a `keyword` check, at 1 MiB.
   */
  body_truncated: z.boolean().optional(),
  /**
   * The body's size in bytes as sent (after de-chunking, before any decompression). Read to the end: the bytes
   * received. Reading stopped early (at the excerpt cap, or at 1 MiB for a `keyword` check): the
   * Content-Length when the server declared one, else the bytes received before stopping, a lower bound
   * whose exact value depends on how the body was chunked (reading the rest only to count it would cost the
   * transfer the cap avoids). A failure midway (e.g. a timeout): the bytes received so far.
   */
  body_bytes: z.number().int(),
  /**
   * With `keyword` only: whether it occurs (case-sensitive) in the final response's body as read: to its end
   * or its first 1 MiB, decoded as UTF-8 (invalid bytes as U+FFFD). Absent when the exchange failed.
   */
  keyword_found: z.boolean().optional(),
  redirects: z.array(z.object({ url: z.string(), status_code: z.number().int() })),
});

export const pingResultSchema = z.object({
  resolved_ip: z.string().nullable(),
  packets_sent: z.number().int(),
  packets_received: z.number().int(),
  packet_loss: z.number(),
  rtt: z.object({ min: z.number(), avg: z.number(), max: z.number(), mdev: z.number() }).nullable(),
  replies: z.array(
    z.object({ seq: z.number().int(), rtt_ms: z.number().nullable(), ttl: z.number().int().nullable() }),
  ),
});

export const dnsResultSchema = z.object({
  /** The resolver's IP address as queried. */
  resolver: z.string(),
  resolver_port: z.number().int().optional(),
  protocol: z.enum(["udp", "tcp"]),
  rcode: z.string(),
  truncated: z.boolean(),
  query_time_ms: z.number(),
  answers: z.array(
    z.object({ name: z.string(), type: z.string(), ttl: z.number().int(), value: z.string() }),
  ),
});

export const tcpResultSchema = z.object({
  resolved_ip: z.string().nullable(),
  port: z.number().int(),
  connect_ms: z.number().nullable(),
});

export const tracerouteResultSchema = z.object({
  resolved_ip: z.string().nullable(),
  reached: z.boolean(),
  hops: z.array(
    z.object({
      hop: z.number().int(),
      ip: z.string().nullable(),
      hostname: z.string().nullable(),
      rtts: z.array(z.number().nullable()),
      /** The responder of each probe, parallel to `rtts` (load-balanced paths can differ per probe). */
      probe_ips: z.array(z.string().nullable()).optional(),
    }),
  ),
});

export type HttpResult = z.infer<typeof httpResultSchema>;
export type PingResult = z.infer<typeof pingResultSchema>;
export type DnsResult = z.infer<typeof dnsResultSchema>;
export type TcpResult = z.infer<typeof tcpResultSchema>;
export type TracerouteResult = z.infer<typeof tracerouteResultSchema>;

export interface ProbeResultByType {
  http: HttpResult;
  ping: PingResult;
  dns: DnsResult;
  tcp: TcpResult;
  traceroute: TracerouteResult;
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
}

/** The one shape every probe file exports. */
export interface Probe<T extends ProbeType> {
  type: T;
  paramsSchema: z.ZodType;
  run(params: Extract<ProbeJobSpec, { type: T }>["params"], ctx: ProbeContext): Promise<ProbeOutcome<T>>;
}
