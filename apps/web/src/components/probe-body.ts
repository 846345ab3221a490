import { pastedHost } from "@vantage/protocol/pasted-host";
import type { Form } from "../api.js";
import type { ProbeType } from "./api-types.js";

/** What the probe form holds, as typed (numbers as text: blank means "the API's default"). */
export interface ProbeFields {
  target: string;
  method: string;
  /** Seconds in the form; Form A takes milliseconds. */
  timeout: string;
  followRedirects: boolean;
  maxRedirects: string;
  keyword: string;
  /** `Name: value` per line. */
  headers: string;
  body: string;
  count: string;
  recordType: string;
  server: string;
  port: string;
  maxHops: string;
  /** mtr: `icmp` (default), `udp` or `tcp`; rounds of probes (blank: the default). */
  mtrMode: string;
  rounds: string;
  /** http: `any` (IPv6, else IPv4, as curl), `ipv4` or `ipv6`. */
  family: string;
  /** http: offer HTTP/2 by ALPN. */
  http2: boolean;
  /** ping: IP packet size in bytes (blank: the default), DF, path MTU search. */
  size: string;
  dontFragment: boolean;
  pmtu: boolean;
  /** dns: `udp` (default), `tcp`, `tls` or `https`; DO and CD flags, NSID, trace from the roots. */
  dnsProtocol: string;
  dnssec: boolean;
  checkingDisabled: boolean;
  nsid: boolean;
  trace: boolean;
}

export const emptyFields: ProbeFields = {
  target: "",
  method: "GET",
  timeout: "",
  followRedirects: false,
  maxRedirects: "",
  keyword: "",
  headers: "",
  body: "",
  count: "",
  recordType: "A",
  server: "",
  port: "",
  maxHops: "",
  mtrMode: "icmp",
  rounds: "",
  family: "any",
  http2: false,
  size: "",
  dontFragment: false,
  pmtu: false,
  dnsProtocol: "udp",
  dnssec: false,
  checkingDisabled: false,
  nsid: false,
  trace: false,
};

export const methods = ["GET", "HEAD", "POST", "PUT", "DELETE", "OPTIONS", "PATCH"];
export const methodsWithBody = ["POST", "PUT", "PATCH", "DELETE"];
export const recordTypes = ["A", "AAAA", "MX", "TXT", "NS", "CNAME", "SOA"];
export const dnsProtocols = ["udp", "tcp", "tls", "https"];

/** The limits the two forms put on the fields that differ (docs/api-forms.md). */
export const limits = (form: Form) => ({ pingCount: form === "a" ? 50 : 10 });

/**
 * A field the form itself can tell is wrong, before asking the API: a header line without a colon (`n` its
 * number), a tcp host naming another port than the Port field (`n` the host's), or no port at all.
 */
export class FieldError extends Error {
  constructor(
    readonly field: keyof ProbeFields,
    readonly key: "headerLine" | "portClash" | "portMissing",
    readonly n: number,
  ) {
    super(`${field}: ${key} ${n}`);
  }
}

const num = (s: string) => (s.trim() === "" ? undefined : Number(s));

/** Drops the keys whose value is undefined, blank or false-by-default; undefined when nothing is left. */
function compact(o: Record<string, unknown>): Record<string, unknown> | undefined {
  const out = Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined && v !== ""));
  return Object.keys(out).length ? out : undefined;
}

export function parseHeaders(text: string): Record<string, string> | undefined {
  const out: Record<string, string> = {};
  text.split("\n").forEach((raw, i) => {
    const line = raw.trim();
    if (!line) return;
    const colon = line.indexOf(":");
    if (colon <= 0) throw new FieldError("headers", "headerLine", i + 1);
    out[line.slice(0, colon).trim()] = line.slice(colon + 1).trim();
  });
  return Object.keys(out).length ? out : undefined;
}

/**
 * The request body of `POST /v1/probe/<type>` in the deployment's form: Form A `{target, node_ids?,
 * params?}` with milliseconds, Form B flat with its own names (`url`, `host`, `domain`) and seconds.
 * `nodes` undefined lets the API choose.
 */
export function probeBody(type: ProbeType, f: ProbeFields, nodes: string[] | undefined, form: Form) {
  const { target, port } = targetOf(type, f);
  const seconds = num(f.timeout);
  const timeout = form === "a" ? (seconds === undefined ? undefined : seconds * 1000) : seconds;
  const tk = form === "a" ? "timeout_ms" : "timeout";
  const http = () => {
    const withBody = methodsWithBody.includes(f.method);
    return {
      method: f.method === "GET" ? undefined : f.method,
      [tk]: timeout,
      follow_redirects: f.followRedirects || undefined,
      max_redirects: f.followRedirects ? num(f.maxRedirects) : undefined,
      headers: parseHeaders(f.headers),
      body: withBody && f.body !== "" ? f.body : undefined,
      keyword: f.method !== "HEAD" && f.keyword !== "" ? f.keyword : undefined,
      ip_family: f.family === "ipv4" || f.family === "ipv6" ? f.family : undefined,
      http2: f.http2 || undefined,
    };
  };
  const params: Record<ProbeType, Record<string, unknown>> = {
    http: {},
    ping: {
      count: num(f.count),
      [tk]: timeout,
      size: num(f.size),
      dont_fragment: f.dontFragment || undefined,
      pmtu: f.pmtu || undefined,
    },
    dns: {
      record_type: f.recordType === "A" ? undefined : f.recordType,
      // A trace starts at the roots: no server, and only over udp/tcp.
      server: f.trace ? undefined : f.server.trim(),
      protocol: f.dnsProtocol === "udp" || (f.trace && f.dnsProtocol !== "tcp") ? undefined : f.dnsProtocol,
      dnssec: f.dnssec || undefined,
      checking_disabled: f.checkingDisabled || undefined,
      nsid: f.nsid || undefined,
      trace: f.trace || undefined,
    },
    tcp: { port, [tk]: timeout },
    traceroute: { max_hops: num(f.maxHops) },
    mtr: {
      mode: f.mtrMode === "icmp" ? undefined : f.mtrMode,
      // The port means something to udp and tcp only (the API refuses it with icmp).
      port: f.mtrMode === "icmp" ? undefined : num(f.port),
      rounds: num(f.rounds),
      max_hops: num(f.maxHops),
    },
  };
  if (type === "http") params.http = http();
  const chosen = nodes?.length ? nodes : undefined;
  if (form === "a") {
    return compact({ target, node_ids: chosen, params: compact(params[type]) });
  }
  const name = type === "http" ? "url" : type === "dns" ? "domain" : "host";
  return compact({ [name]: target, ...params[type], nodes: chosen });
}

/**
 * The target as the API takes it, from what was typed or pasted: http adds `https://` to a bare host; ping,
 * dns and traceroute take a URL's or `host:port`'s host; tcp also its port (the Port field, else the one in
 * the host, else the URL scheme's).
 */
export function targetOf(type: ProbeType, f: ProbeFields): { target: string; port?: number | undefined } {
  const typed = f.target.trim();
  if (type === "http") return { target: /^[a-z][a-z0-9+.-]*:\/\//i.test(typed) ? typed : `https://${typed}` };
  const pasted = pastedHost(typed);
  if (type !== "tcp") return { target: pasted.host };
  const field = num(f.port);
  if (pasted.port !== undefined && field !== undefined && pasted.port !== field)
    throw new FieldError("port", "portClash", pasted.port);
  const port = field ?? pasted.port ?? pasted.schemePort;
  if (port === undefined) throw new FieldError("port", "portMissing", 0);
  return { target: pasted.host, port };
}
