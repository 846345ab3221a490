import type { HostLookup } from "@vantage/probes";
import type { z } from "zod";
import type { DnsRecordsInput, DnsRecordsResult } from "./dns/schema.js";
import type { IcpInput, IcpOptions, IcpResult } from "./icp/schema.js";
import type { IpDataSource, IpInput, IpResult } from "./ip/schema.js";
import type { ReputationInput, ReputationOptions, ReputationResult } from "./reputation/schema.js";
import type { SslInput, SslResult, TlsAuditOptions } from "./tls/schema.js";
import type { WhoisInput, WhoisOptions, WhoisResult } from "./whois/schema.js";

/**
 * The information lookups built so far. Each kind has an input and a result type in the maps below, a file
 * exporting a `Lookup<kind>`, and a line in the registry: the compiler refuses a build missing any of them.
 */
export const lookupKinds = ["ip", "whois", "ssl", "dns", "icp", "reputation"] as const;
export type LookupKind = (typeof lookupKinds)[number];

/** What each lookup takes, after its schema has parsed it (defaults applied, values normalised). */
export interface LookupInputByKind {
  ip: IpInput;
  whois: WhoisInput;
  ssl: SslInput;
  dns: DnsRecordsInput;
  icp: IcpInput;
  reputation: ReputationInput;
}

/** What each lookup answers: the `data` of the API response. */
export interface LookupResultByKind {
  ip: IpResult;
  whois: WhoisResult;
  ssl: SslResult;
  dns: DnsRecordsResult;
  icp: IcpResult;
  reputation: ReputationResult;
}

/**
 * Everything a lookup reaches outside itself comes through here, so tests (and deployments) can replace it.
 * Nothing in this package reads `process.env`: the controller builds the context from its config.
 */
export interface LookupContext {
  /** Lifts the target guard (tests, private deployments): servers the context names may be private. */
  allowPrivate: boolean;
  /** The caller has gone: stop waiting at once. */
  signal?: AbortSignal | undefined;
  /** Longest time the whole lookup may take, ms; each lookup has its own default. */
  timeoutMs?: number | undefined;
  /**
   * The DNS resolver to query, `host`, `host:port`, `[v6]:port`; the first nameserver of /etc/resolv.conf
   * when omitted. A resolver named here goes through the target guard unless `allowPrivate`; one that
   * cannot be parsed is `invalid_input` with the path `server`.
   */
  dnsServer?: string | undefined;
  /** Resolves host names the lookup connects to (a resolver given by name…); getaddrinfo when omitted. */
  lookup?: HostLookup | undefined;
  /** The current time (certificate expiry, WHOIS dates); `new Date()` when omitted. */
  now?: (() => Date) | undefined;
  /** The IP data the `ip` lookup reads; without it the lookup fails `unavailable`. */
  ipData?: IpDataSource | undefined;
  /** RDAP bootstrap, port-43 servers and HTTP client of the `whois` lookup. */
  whois?: WhoisOptions | undefined;
  /** Trust anchors of the `ssl` lookup. */
  tls?: TlsAuditOptions | undefined;
  /** Provider, cache and HTTP client of the `icp` lookup. */
  icp?: IcpOptions | undefined;
  /** Datasets, DNSBL zones and reverse-DNS switch of the `reputation` lookup (its AS numbers: `ipData`). */
  reputation?: ReputationOptions | undefined;
}

/** The one shape every lookup file exports. */
export interface Lookup<K extends LookupKind> {
  kind: K;
  /** Parses the raw input: the API's query parameters, once the controller has named them. */
  inputSchema: z.ZodType<LookupInputByKind[K]>;
  run(input: LookupInputByKind[K], ctx: LookupContext): Promise<LookupResultByKind[K]>;
}

/**
 * Stable snake_case codes API users match on. The controller maps them to HTTP: invalid_input 400,
 * not_found 404, target_not_allowed 422, upstream_error 502, unavailable 503, upstream_timeout 504.
 */
export const lookupErrorCodes = [
  "invalid_input",
  "not_found",
  "target_not_allowed",
  "upstream_error",
  "unavailable",
  "upstream_timeout",
] as const;
export type LookupErrorCode = (typeof lookupErrorCodes)[number];

/** One problem with the input, shaped like the API's validation details (`path` is dot-joined). */
export interface LookupIssue {
  path: string;
  message: string;
}

/** The only error a lookup throws on purpose; anything else escaping `runLookup` is a bug (500). */
export class LookupError extends Error {
  constructor(
    readonly code: LookupErrorCode,
    message: string,
    /** For `invalid_input`: every issue, the first of which the message names. */
    readonly issues: LookupIssue[] = [],
  ) {
    super(message);
    this.name = "LookupError";
  }
}
