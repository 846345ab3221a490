import { isIP } from "node:net";
import { domainToASCII } from "node:url";
import { z } from "@hono/zod-openapi";
import {
  dnsParamsConflicts,
  dnsProtocols,
  dnsRecordTypes,
  HTTP_MAX_REQUEST_HEADERS,
  httpKeywordSchema,
  httpParamsConflicts,
  httpRequestBodySchema,
  httpRequestHeadersSchema,
  MTR_MAX_ROUNDS,
  mtrModes,
  PING_MAX_SIZE,
  PING_MIN_SIZE,
  PMTU_MAX_PROBES,
  type ProbeJobSpec,
  probeJobSpecSchema,
  TRACE_BUDGET_FACTOR,
  TRACE_MAX_DEPTH,
} from "@vantage/probes";
import { nodeIdPattern } from "@vantage/protocol";
import { pastedHost } from "@vantage/protocol/pasted-host";
import { limitEntries } from "../../http/body-bounds.js";
import { fieldError } from "../../http/errors.js";
import { hasUnstorableChars } from "../../lib/unstorable-text.js";
import { MAX_NODE_IDS } from "./select-nodes.js";
import { literalAddress } from "./target-check.js";

/** Request fields both forms share. Limits: host names 253 chars, URLs 2048, node lists 50 ids. */

const label = "[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?";
const hostnamePattern = new RegExp(`^${label}(?:\\.${label})*\\.?$`);

/** An IP address (IPv6 also in brackets) or a host name; brackets around anything but IPv6 are refused. */
export function isHostOrIp(value: string): boolean {
  if (value.startsWith("[") && value.endsWith("]")) return isIP(value.slice(1, -1)) === 6;
  return isIP(value) !== 0 || isHostName(value);
}

/**
 * A host name. A name whose last label is a number is not one: resolvers and URL parsers read it as an IPv4
 * address in another notation (`127.1`, `2130706433`, `0x7f.1`), so it counts only if it is a valid one
 * (`256.1.1.1` and `1.2.3.4.5` are neither names nor addresses: 400).
 */
function isHostName(v: string): boolean {
  if (v.length > 253 || !hostnamePattern.test(v)) return false;
  const last = v.replace(/\.$/, "").split(".").pop() ?? "";
  return !/^(?:\d+|0x[0-9a-f]*)$/i.test(last) || literalAddress(v) !== undefined;
}

/** C0 controls or DEL (U+0000 included): nothing a URL may carry. */
function hasControlChars(v: string): boolean {
  for (let i = 0; i < v.length; i++) {
    const c = v.charCodeAt(i);
    if (c < 0x20 || c === 0x7f) return true;
  }
  return false;
}

/**
 * An internationalised name (`bücher.example`) in its ASCII form (`xn--bcher-kva.example`), as resolvers
 * need it; ASCII input, IP addresses and brackets come back unchanged; a name no IDNA mapping accepts
 * comes back as it was and fails the name check after it.
 */
export function toAsciiName(v: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the ASCII range itself, not control characters
  if (/^[\x00-\x7f]*$/.test(v)) return v;
  return domainToASCII(v) || v;
}

/** A field that takes what `pastedHost` takes and passes the host alone on to `inner`. */
const pasted = <T extends z.ZodType<unknown, string>>(inner: T) =>
  z
    .string()
    .min(1)
    .max(2048)
    .transform((v) => pastedHost(v).host)
    .pipe(inner);

export const hostField = z
  .string()
  .min(1)
  .max(253)
  .transform(toAsciiName)
  .refine(isHostOrIp, "must be a host name or an IP address")
  .openapi({ example: "example.com", description: "Host name (IDN allowed) or IP address" });

export const domainField = z
  .string()
  .min(1)
  .max(253)
  .transform(toAsciiName)
  .refine((v) => hostnamePattern.test(v) && v.length <= 253, "must be a domain name")
  .openapi({ example: "example.com", description: "Domain name (IDN allowed)" });

/** A host name or IP; a pasted URL or `host:port` gives its host (the port is not used). */
export const pastedHostField = pasted(hostField).openapi({
  example: "example.com",
  description:
    "Host name (IDN allowed) or IP address. A URL or `host:port` (`[v6]:port`) is taken too: its host is used",
});

/** A domain name; a pasted URL or `host:port` gives its host. */
export const pastedDomainField = pasted(domainField).openapi({
  example: "example.com",
  description: "Domain name (IDN allowed). A URL or `host:port` is taken too: its host is used",
});

export const urlField = z
  .string()
  .min(1)
  .max(2048)
  .refine(
    (v) => !hasControlChars(v) && !hasUnstorableChars(v),
    "must not contain control characters or unpaired surrogates",
  )
  .superRefine((v, ctx) => {
    let u: URL;
    try {
      u = new URL(v);
    } catch {
      ctx.addIssue({ code: "custom", message: "must be an http:// or https:// URL" });
      return;
    }
    if ((u.protocol !== "http:" && u.protocol !== "https:") || u.hostname === "")
      ctx.addIssue({ code: "custom", message: "must be an http:// or https:// URL" });
    else if (u.port === "0") ctx.addIssue({ code: "custom", message: "port must be 1–65535" });
    else if (u.username !== "" || u.password !== "")
      ctx.addIssue({
        code: "custom",
        message: "must not carry credentials (user:password@): they would be stored with the task",
      });
  })
  .openapi({ example: "https://example.com/" });

/** `host`, `host:port`, an IPv6 address or `[v6]:port`. */
export const serverField = z
  .string()
  .min(1)
  .max(2048)
  .refine((v) => {
    if (isIP(v) !== 0) return true;
    // A DoH URL (protocol https): an https:// URL with a host, no credentials; its pairing is checked after.
    if (/^[a-z][a-z0-9+.-]*:\/\//i.test(v)) return isDohUrl(v);
    if (v.length > 260) return false;
    const m = /^(\[[^\]]+\]|[^:]+)(?::(\d{1,5}))?$/.exec(v);
    if (!m) return false;
    const port = m[2] === undefined ? 53 : Number(m[2]);
    return isHostOrIp(m[1]!) && port >= 1 && port <= 65_535;
  }, "must be host, host:port, an IPv6 address, [v6]:port, or with protocol https an https:// URL")
  .openapi({
    description:
      "Custom DNS server (port 53, 853 with protocol tls); with protocol https the DoH URL " +
      "(`https://dns.example/dns-query`); omitted = the node's own resolver",
    example: "1.1.1.1",
  });

/** An https:// URL naming a host, with no user:password and no control characters. */
function isDohUrl(v: string): boolean {
  if (hasControlChars(v)) return false;
  try {
    const u = new URL(v);
    return (
      u.protocol === "https:" && u.hostname !== "" && u.username === "" && u.password === "" && u.port !== "0"
    );
  } catch {
    return false;
  }
}

/** The DNS options both forms take (a documented extension). */
export const dnsOptionFields = {
  protocol: z.enum(dnsProtocols).openapi({
    description:
      "`udp` (default; TCP when the answer is truncated), `tcp`, `tls` (DNS over TLS, RFC 7858, port 853 " +
      "unless `server` names one) or `https` (DNS over HTTPS, RFC 8484: `server` is the URL). The result's " +
      "`tls` describes the server's certificate; trust is reported, not enforced. Needs agents of this " +
      "version: older ones ignore it and ask over UDP.",
  }),
  doh_method: z
    .enum(["POST", "GET"])
    .openapi({ description: "With protocol https: POST (default) or GET (`?dns=` base64url)." }),
  dnssec: z.boolean().openapi({
    description: "Set the EDNS DO bit (`dig +dnssec`): DNSSEC records (RRSIG…) are asked for; default false.",
  }),
  checking_disabled: z.boolean().openapi({
    description:
      "Set the CD flag (`dig +cdflag`): the resolver should answer without validating; default false.",
  }),
  nsid: z.boolean().openapi({
    description:
      "Ask for the server's NSID (RFC 5001, `dig +nsid`): the result's `nsid`, null if it sent none.",
  }),
  trace: z.boolean().openapi({
    description:
      "Resolve iteratively from the root servers as `dig +trace`: the result's `trace` lists each server " +
      `asked. Not with \`server\`, nor protocol tls/https. Every server a referral names passes the target ` +
      `guard; NS names without glue are looked up from the roots too; at most ${TRACE_MAX_DEPTH} delegations, the whole ` +
      `trace within ${TRACE_BUDGET_FACTOR} × the timeout. The roots are the IANA ones unless the node's ` +
      "operator sets VANTAGE_DNS_ROOTS.",
  }),
};

/** The rules between the DNS options, as the probe has them, at the fields' own paths. */
export function checkDnsOptions(
  v: {
    server?: string | undefined;
    protocol?: string | undefined;
    doh_method?: string | undefined;
    trace?: boolean | undefined;
  },
  ctx: z.RefinementCtx,
): void {
  for (const { field, message } of dnsParamsConflicts(v))
    ctx.addIssue({ code: "custom", path: [field], message });
}

export const nodeIdsField = z
  .array(z.string().regex(nodeIdPattern, "not a node id"))
  .max(MAX_NODE_IDS)
  .openapi({
    description: `Probe from these nodes (at most ${MAX_NODE_IDS}); empty or omitted = chosen automatically`,
    example: ["fra1", "sgp1"],
  });

export const methodField = z
  .enum(["GET", "HEAD", "POST", "PUT", "DELETE", "OPTIONS", "PATCH"])
  .openapi({ description: "HTTP method (default GET)" });

export const followRedirectsField = z
  .boolean()
  .openapi({ description: "Follow redirects (each hop checked by the target guard again); default false" });

export const maxRedirectsField = z
  .number()
  .int()
  .min(0)
  .max(10)
  .openapi({ description: "Most redirects to follow when following, 0–10, default 5" });

export const ipFamilyField = z.enum(["any", "ipv4", "ipv6"]).openapi({
  description:
    "Address family the node connects over: `ipv4`, `ipv6`, or `any` (default): the name's first address, " +
    "and when that connection is refused or unreachable the first address of the other family, as curl " +
    "does (e.g. a host whose IPv6 is broken is still measured over IPv4). `resolved_ip` says which was used. " +
    "Older agents take `ipv4`/`ipv6` too; only the fallback needs agents of this version.",
});

/** The API's family name → the probe's `ip_version` (absent = any). */
export function ipVersionOf(family: "any" | "ipv4" | "ipv6" | undefined): 4 | 6 | undefined {
  return family === "ipv4" ? 4 : family === "ipv6" ? 6 : undefined;
}

/** Older agents drop params they do not know, so the probe runs without them. */
const agentsNote = " Needs agents of this version: older ones ignore it.";

// `.meta()`, not `.openapi()`: these schemas come from @vantage/probes and may be built before
// @hono/zod-openapi adds `.openapi` to zod; the OpenAPI generator reads both. The header count is checked
// before any header is (`limitEntries`), in the schema's own words.
const requestHeadersDocumented = httpRequestHeadersSchema.meta({
  description:
    `Request headers, at most ${HTTP_MAX_REQUEST_HEADERS}: names are HTTP tokens (1–128 characters, unique ` +
    "regardless of case), values at most 1024 characters of visible ASCII, spaces and tabs (no CR/LF). " +
    "User-Agent and Accept replace the probe's own. Refused: Host, Content-Length, Transfer-Encoding, " +
    "Expect, Connection, Keep-Alive, TE, Trailer, Upgrade, Accept-Encoding (bodies are not decompressed) " +
    "and Proxy-*. Sent on every redirect hop, except Authorization and Cookie, which go only to the URL's " +
    "own origin. Stored with the task, like the URL." +
    agentsNote,
  example: { Authorization: "Bearer …", "Content-Type": "application/json" },
});
export const requestHeadersField = limitEntries(
  requestHeadersDocumented,
  HTTP_MAX_REQUEST_HEADERS,
  `at most ${HTTP_MAX_REQUEST_HEADERS} headers`,
);

export const requestBodyField = httpRequestBodySchema
  .refine((v) => !hasUnstorableChars(v), "must not contain U+0000 or unpaired surrogates")
  .meta({
    description:
      "Request body, at most 64 KiB as UTF-8, sent with its Content-Length; only with method POST, PUT, " +
      "PATCH or DELETE (400 otherwise). Set its type with a Content-Type header. Repeated on 307/308 " +
      "redirects, dropped when a redirect turns the request into a GET. Stored with the task." +
      agentsNote,
  });

export const keywordField = httpKeywordSchema
  .refine((v) => !hasUnstorableChars(v), "must not contain U+0000 or unpaired surrogates")
  .meta({
    description:
      "1–256 characters looked for (case-sensitive, as a substring) in the final response's body: its first " +
      "1 MiB, read as UTF-8 (invalid bytes as U+FFFD). The result says `keyword_found`; the body is then read " +
      "beyond the 10 kB excerpt, within timeout. Not with method HEAD." +
      " Needs agents of this version: older ones ignore it, and their results have no keyword_found.",
    example: "All systems operational",
  });

export const http2Field = z.boolean().openapi({
  description:
    "Offer HTTP/2 by ALPN (h2, then http/1.1), as `curl --http2`: the result's `http_version` says which the " +
    'server chose ("2" or "1.1"). https:// only: an http:// URL is asked over HTTP/1.1 (no h2c). Default ' +
    "false. Needs agents of this version: older ones ignore it and report no http_version.",
});

/** The rules between method, body and keyword, as the probe has them, at the fields' own paths. */
export function checkHttpOptions(
  v: { method?: string | undefined; body?: string | undefined; keyword?: string | undefined },
  ctx: z.RefinementCtx,
): void {
  for (const { field, message } of httpParamsConflicts(v))
    ctx.addIssue({ code: "custom", path: [field], message });
}

/** mtr's options, the same fields in both forms (Form A under `params`, Form B flat). */
export const mtrOptionFields = {
  mode: z.enum(mtrModes).optional().openapi({
    description:
      "How probes are sent: `icmp` echo (default, as `mtr`), `udp` (`mtr -u`) or `tcp` SYN (`mtr -T`)",
  }),
  port: z.number().int().min(1).max(65_535).optional().openapi({
    description: "Destination port for `udp` (default 33434) and `tcp` (default 80); not with `icmp`",
  }),
  rounds: z
    .number()
    .int()
    .min(1)
    .max(MTR_MAX_ROUNDS)
    .optional()
    .openapi({ description: `Rounds of probes, one per hop each (mtr -c), 1–${MTR_MAX_ROUNDS}, default 10` }),
  max_hops: z.number().int().min(1).max(64).optional().openapi({ description: "1–64, default 30" }),
  interval_ms: z
    .number()
    .int()
    .min(100)
    .max(5000)
    .optional()
    .openapi({ description: "Milliseconds between rounds (mtr -i), 100–5000, default 1000" }),
  timeout_ms: z
    .number()
    .int()
    .min(100)
    .max(5000)
    .optional()
    .openapi({ description: "Wait for each probe's answer, 100–5000 ms, default 1000, at most interval_ms" }),
};

/** `port` means nothing to ICMP. */
export function checkMtrOptions(
  v: { mode?: string | undefined; port?: number | undefined },
  ctx: z.RefinementCtx,
) {
  if (v.port !== undefined && (v.mode ?? "icmp") === "icmp")
    ctx.addIssue({ code: "custom", path: ["port"], message: "only with mode udp or tcp" });
}

export const pingSizeField = z
  .number()
  .int()
  .min(PING_MIN_SIZE)
  .max(PING_MAX_SIZE)
  .openapi({
    description:
      `Each echo's IP packet in bytes, headers included (${PING_MIN_SIZE}–${PING_MAX_SIZE}; \`ping -s\` is size − 28 ` +
      "on IPv4, − 48 on IPv6, where packets are at least 48 bytes). Default 84 / 104 (56 data bytes). With " +
      "`pmtu`, the largest size the search tries (default 1500)." +
      agentsNote,
    example: 1500,
  });

export const dontFragmentField = z.boolean().openapi({
  description:
    "true: DF set and no fragmenting on the node, so a packet over the path MTU fails with `packet_too_big`; " +
    "false: DF clear, IPv4 routers may fragment (IPv6 routers never do). Default: the node's system setting." +
    agentsNote,
});

export const pmtuField = z.boolean().openapi({
  description:
    "After the echoes, find the path MTU: the largest packet (bytes, headers included; up to `size`, default " +
    "1500) that reaches the target and gets its reply with DF set, as `pmtu` in each node's result (null if " +
    `none did). Binary search, at most ${PMTU_MAX_PROBES} echoes, each waiting its timeout at worst (a lost ` +
    'echo counts as too big); a router\'s "fragmentation needed" names its MTU, which shortens it.' +
    agentsNote,
});

export const recordTypeField = z.enum(dnsRecordTypes).openapi({ description: "Default A" });

export const portField = z.number().int().min(1).max(65_535);

/** `host:port` as a task's stored target (`[v6]:port` for an IPv6 address). */
export function hostPort(host: string, port: number): string {
  return `${isIP(host) === 6 ? `[${host}]` : host}:${port}`;
}

/**
 * `host:port`, `[v6]:port`, a URL, or a bare host (or IPv6 address) whose port comes from `paramPort`; a
 * URL naming no port takes `paramPort`, else its scheme's. `paths` name the fields in the caller's form.
 */
export function splitHostPort(
  target: string,
  paramPort: number | undefined,
  paths: { target: string; port: string } = { target: "body.target", port: "body.params.port" },
): { host: string; port: number } {
  const given = pastedHost(target);
  let host = given.host;
  let port = given.port;
  if (port !== undefined) {
    if (port < 1 || port > 65_535) throw fieldError(paths.target, "port must be 1–65535");
    if (paramPort !== undefined && paramPort !== port)
      throw fieldError(paths.port, `differs from the port in ${paths.target.replace(/^body\./, "")}`);
  }
  host = toAsciiName(host);
  if (host.length > 255 || !isHostOrIp(host))
    throw fieldError(paths.target, "must be host:port or a host name");
  if (host.startsWith("[")) host = host.slice(1, -1);
  port ??= paramPort ?? given.schemePort;
  if (port === undefined) throw fieldError(paths.port, "required when target has no port");
  return { host, port };
}

/** Fills the probe's own defaults and checks the result against the wire schema. */
export function buildSpec(type: ProbeJobSpec["type"], params: Record<string, unknown>): ProbeJobSpec {
  const clean = Object.fromEntries(Object.entries(params).filter(([, v]) => v !== undefined));
  return probeJobSpecSchema.parse({ type, params: clean });
}
