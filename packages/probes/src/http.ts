import { request as httpRequest, type IncomingMessage, type RequestOptions } from "node:http";
import { request as httpsRequest } from "node:https";
import { isIP, type LookupFunction } from "node:net";
import type { TLSSocket } from "node:tls";
import { elapsedMs, now } from "./clock.js";
import { HTTP_KEYWORD_SCAN_BYTES } from "./http-request-params.js";
import { type BodyExcerpt, cappedHeaders, readExcerpt } from "./http-response.js";
import { summarizeTls, type TlsSummary } from "./http-tls.js";
import { parseUrl, redirectTarget, without } from "./http-url.js";
import { connectAndSendH2 } from "./http2-connect.js";
import { onAbort, settle } from "./outcome.js";
import { ProbeFailure, toProbeFailure } from "./probe-failure.js";
import { type HttpParams, httpParamsSchema } from "./probe-params.js";
import type { HttpResult } from "./probe-results.js";
import { sameAddress } from "./same-address.js";
import { resolveAndCheck } from "./target-guard.js";
import type { Probe, ProbeContext } from "./types.js";

const USER_AGENT = "Vantage probe (+https://github.com/vantage)";
const REDIRECTS = new Set([301, 302, 303, 307, 308]);
/** Headers describing the request body: dropped with it when a redirect turns the request into a GET. */
const BODY_HEADERS = new Set(["content-type", "content-encoding", "content-language", "content-location"]);
/** Credentials: sent only to the URL's own origin, never to a redirect target elsewhere (as fetch and curl). */
const CREDENTIAL_HEADERS = new Set(["authorization", "cookie"]);

/**
 * One HTTP(S) exchange (redirects followed only when asked). `timeout_ms` bounds the whole exchange; the
 * phases describe the final request and `total` the whole exchange, redirects included (as curl's).
 */
export const httpProbe: Probe<"http"> = createHttpProbe(resolveAndCheck);

/** How each hop's host becomes one checked address; tests swap it to put a "public" origin on loopback. */
export type ResolveTarget = typeof resolveAndCheck;

export function createHttpProbe(resolveTarget: ResolveTarget): Probe<"http"> {
  return {
    type: "http",
    paramsSchema: httpParamsSchema,
    run: (params, ctx) => settle<"http">(() => exchange(params, ctx, resolveTarget)),
  };
}

async function exchange(params: HttpParams, ctx: ProbeContext, resolveTarget: ResolveTarget) {
  const started = now();
  const redirects: HttpResult["redirects"] = [];
  // The last redirecting response: what a failure on the way to its target still reports.
  let redirecting: Hop | null = null;
  const chain = (): HttpResult | null =>
    redirecting === null
      ? null
      : {
          ...redirecting.result,
          timings: { ...redirecting.result.timings, total: elapsedMs(started) },
          redirects,
        };
  let url = parseUrl(params.url);
  const origin = url.origin;
  let method = params.method;
  let body = params.body;
  let headers = params.headers ?? {};
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(), params.timeout_ms);
  const removeAbort = onAbort(ctx.signal, () => deadline.abort());
  try {
    for (;;) {
      const outgoing = {
        method,
        body,
        headers: url.origin === origin ? headers : without(headers, CREDENTIAL_HEADERS),
      };
      const hop = await oneRequest(url, outgoing, params, ctx, deadline.signal, started, resolveTarget);
      const status = hop.result.status_code ?? 0;
      const location = locationToFollow(params, status, hop.location);
      if (location === undefined) {
        const detail: HttpResult = { ...hop.result, redirects };
        return { detail, latency_ms: detail.timings.total };
      }
      redirects.push({ url: url.href, status_code: status });
      redirecting = hop;
      if (redirects.length > params.max_redirects) {
        throw new ProbeFailure("too_many_redirects", `more than ${params.max_redirects} redirects`);
      }
      url = redirectTarget(location, url);
      // 303 always, and 301/302 after a non-GET, turn into GET the way browsers and curl -L do.
      if (status === 303 || ((status === 301 || status === 302) && method !== "GET" && method !== "HEAD")) {
        method = "GET";
        body = undefined;
        headers = without(headers, BODY_HEADERS);
      }
    }
  } catch (error) {
    // Whatever ends the exchange keeps the chain: the failing hop's own partial detail when it has one, else
    // the redirecting response that led to it (e.g. a target the guard refused before any connection).
    const failure = toProbeFailure<Omit<HttpResult, "redirects">>(error);
    throw new ProbeFailure(
      failure.code,
      failure.message,
      failure.detail === null ? chain() : { ...failure.detail, redirects },
    );
  } finally {
    clearTimeout(timer);
    removeAbort();
  }
}

/** The Location the exchange goes on to when a response is a redirect to follow; undefined when it ends. */
function locationToFollow(params: HttpParams, status: number, location: string | undefined) {
  return params.follow_redirects && REDIRECTS.has(status) ? location : undefined;
}

interface Marks {
  connectedAt: bigint | null;
  connectMs: number | null;
  tlsMs: number | null;
  tls: TlsSummary | null;
  /** When the connection was ready for the request (after TLS for https). */
  ready: bigint | null;
  /** With `http2`: the HTTP version ALPN settled ("2" or "1.1"). */
  version?: "2" | "1.1";
}

/** One hop's request: the method, body and caller's headers after what redirects changed. */
interface Outgoing {
  method: HttpParams["method"];
  body: string | undefined;
  headers: Record<string, string>;
}

interface Hop {
  result: Omit<HttpResult, "redirects">;
  /** The Location header whole (the one in `result.headers` is capped for storage). */
  location: string | undefined;
}

async function oneRequest(
  url: URL,
  outgoing: Outgoing,
  params: HttpParams,
  ctx: ProbeContext,
  /** The exchange's deadline (timeout_ms) and the caller's abort in one. */
  signal: AbortSignal,
  exchangeStart: bigint,
  resolveTarget: ResolveTarget,
): Promise<Hop> {
  const hostname = url.hostname.replace(/^\[|\]$/g, "");
  const hopStart = now();
  // Each hop (redirect targets too) is resolved once and checked; the socket may only use that address.
  // The deadline signal bounds the lookup: timeout_ms covers the whole exchange, resolution included.
  const target = await resolveTarget(hostname, {
    allowPrivate: ctx.allowPrivate,
    family: params.ip_version,
    signal,
    lookup: ctx.lookup,
  });
  const dnsMs = isIP(hostname) !== 0 ? 0 : elapsedMs(hopStart);
  const https = url.protocol === "https:";
  // Filled in by socket events; an object because closures assign it (TS would narrow plain lets to null).
  const m: Marks = { connectedAt: null, connectMs: null, tlsMs: null, tls: null, ready: null };
  // The address in use: the resolved one, or its fallback of the other family once that one is tried.
  let address = target.address;
  const partial = (): Omit<HttpResult, "redirects"> => ({
    resolved_ip: address,
    status_code: null,
    headers: {},
    timings: {
      dns: dnsMs,
      connect: m.connectMs,
      tls: m.tlsMs,
      first_byte: null,
      total: elapsedMs(exchangeStart),
    },
    tls: m.tls,
    body_excerpt: "",
    body_bytes: 0,
  });
  // With no family asked for, an address that refuses or cannot be reached before the connection is up
  // gives way to the name's first address of the other family, as curl does: a host whose IPv6 is broken
  // is still measured over IPv4. Nothing was sent, so trying again repeats nothing.
  let res: IncomingMessage;
  // HTTP/2 is offered by ALPN on https only (no h2c): an http:// URL stays HTTP/1.1.
  const send = (to: { address: string; family: 4 | 6 }) =>
    https && params.http2
      ? connectAndSendH2(
          url,
          hostname,
          to,
          { method: outgoing.method, headers: requestHeaders(outgoing), body: outgoing.body },
          signal,
          m,
          (error) => requestFailure(error, params, signal, https, m, partial),
        )
      : connectAndSend(url, https, hostname, to, outgoing, params, signal, m, partial);
  try {
    res = await send(target);
  } catch (error) {
    const fallback = target.fallback;
    if (
      fallback === undefined ||
      signal.aborted ||
      m.connectedAt !== null ||
      !(error instanceof ProbeFailure) ||
      !FALLBACK_CODES.has(error.code)
    )
      throw error;
    address = fallback.address;
    res = await send(fallback);
  }
  const firstByte = now();
  const headers = cappedHeaders(res.rawHeaders);
  // A keyword is looked for in the final response only; without one, reading stops at the excerpt as ever.
  const keyword =
    params.keyword !== undefined &&
    locationToFollow(params, res.statusCode ?? 0, res.headers.location) === undefined
      ? params.keyword
      : undefined;
  const result = (body: BodyExcerpt, complete = false): Omit<HttpResult, "redirects"> => ({
    resolved_ip: address,
    status_code: res.statusCode ?? null,
    headers,
    timings: {
      dns: dnsMs,
      connect: m.connectMs,
      tls: m.tlsMs,
      first_byte: m.ready === null ? null : elapsedMs(m.ready, firstByte),
      // From the first byte of the response to the end of the body as read (null when it did not end).
      download: complete ? elapsedMs(firstByte) : null,
      total: elapsedMs(exchangeStart),
    },
    // Asked for HTTP/2: which version answered (an http:// URL has no h2c: always 1.1).
    ...(params.http2 ? { http_version: m.version ?? "1.1" } : {}),
    tls: m.tls,
    body_excerpt: body.excerpt,
    body_bytes: body.bytes,
    body_truncated: body.truncated,
  });
  const body = readExcerpt(res, keyword === undefined ? undefined : HTTP_KEYWORD_SCAN_BYTES);
  try {
    const complete = await body.done;
    // A body without a length ends when the connection does, and the deadline closing it looks the same:
    // a body cut short by the deadline is a timeout, not a success (one cut at the read cap is fine).
    if (signal.aborted && !complete.capped) throw new Error("aborted at the deadline");
    const found =
      keyword === undefined
        ? {}
        : { keyword_found: new TextDecoder("utf-8").decode(complete.read).includes(keyword) };
    return { result: { ...result(complete, true), ...found }, location: res.headers.location };
  } catch (error) {
    const failure = signal.aborted
      ? new ProbeFailure("timeout", "body not complete in time")
      : toProbeFailure(error);
    // The headers and whatever part of the body had arrived.
    throw new ProbeFailure(failure.code, failure.message, result(body.soFar()));
  }
}

/** Connection failures after which the other family's address is tried (no family asked for). */
const FALLBACK_CODES: ReadonlySet<string> = new Set([
  "connection_refused",
  "host_unreachable",
  "network_unreachable",
  "ipv6_unavailable",
]);

/**
 * Connects to `to` (an address the guard approved), sends the request and resolves with the response head.
 * `m` collects the connection's timings; a failure rejects with a ProbeFailure carrying `partial()`.
 */
function connectAndSend(
  url: URL,
  https: boolean,
  hostname: string,
  to: { address: string; family: 4 | 6 },
  outgoing: Outgoing,
  params: HttpParams,
  signal: AbortSignal,
  m: Marks,
  partial: () => Omit<HttpResult, "redirects">,
): Promise<IncomingMessage> {
  // Answered on the next tick, as a real lookup is: called back at once, a connect that fails at once
  // (EADDRNOTAVAIL with IPv6 disabled) is emitted before http listens on the socket, an uncaught exception.
  const pinned: LookupFunction = (_name, options, callback) =>
    process.nextTick(() => {
      if (options.all) callback(null, [{ address: to.address, family: to.family }]);
      else callback(null, to.address, to.family);
    });
  const options: RequestOptions & { servername?: string; rejectUnauthorized?: boolean } = {
    host: hostname,
    port: url.port === "" ? (https ? 443 : 80) : Number(url.port),
    path: `${url.pathname}${url.search}`,
    method: outgoing.method,
    headers: requestHeaders(outgoing),
    lookup: pinned,
    family: to.family,
    agent: false,
    signal,
    ...(https
      ? { rejectUnauthorized: false, ...(isIP(hostname) === 0 ? { servername: hostname } : {}) }
      : {}),
  };
  // Restarted when the socket has its (pinned) address, right before connect(2): building the request
  // and handing out the socket take Node a fraction of a millisecond that is not network time.
  let connectStart = now();
  return new Promise<IncomingMessage>((resolve, reject) => {
    const req = (https ? httpsRequest : httpRequest)(options, resolve);
    req.on("socket", (socket) => {
      socket.once("lookup", () => {
        connectStart = now();
      });
      socket.once("connect", () => {
        m.connectedAt = now();
        m.connectMs = elapsedMs(connectStart, m.connectedAt);
        m.ready = m.connectedAt;
        // Defence in depth: the kernel-level peer must be the address the guard approved. Compared by
        // value: the URL writes `[::ffff:127.0.0.1]` as `::ffff:7f00:1`, the kernel reports the dotted form.
        if (socket.remoteAddress && !sameAddress(socket.remoteAddress, to.address)) {
          req.destroy(
            new ProbeFailure("target_not_allowed", `connected to ${socket.remoteAddress}, not ${to.address}`),
          );
        }
      });
      socket.once("secureConnect", () => {
        m.ready = now();
        m.tlsMs = m.connectedAt === null ? null : elapsedMs(m.connectedAt, m.ready);
        // Inside a socket event a throw would end the process: a certificate that cannot be read
        // ends this request instead.
        try {
          m.tls = summarizeTls(socket as TLSSocket);
        } catch (error) {
          req.destroy(new ProbeFailure("tls_error", `unreadable certificate: ${(error as Error).message}`));
        }
      });
    });
    req.on("error", (error) => reject(requestFailure(error, params, signal, https, m, partial)));
    req.end(outgoing.body);
  });
}

/** A request's failure as a ProbeFailure carrying what was measured so far. */
function requestFailure(
  error: unknown,
  params: HttpParams,
  signal: AbortSignal,
  https: boolean,
  m: Marks,
  partial: () => Omit<HttpResult, "redirects">,
): ProbeFailure {
  const failure = signal.aborted
    ? new ProbeFailure("timeout", `no complete answer within ${params.timeout_ms} ms`)
    : toProbeFailure(error);
  // A failure after TCP connect but before the handshake finished is the TLS layer's.
  const code =
    https && m.connectedAt !== null && m.tls === null && failure.code === "probe_error"
      ? "tls_error"
      : failure.code;
  return new ProbeFailure(code, failure.message, partial());
}

/** The probe's own User-Agent and Accept unless the caller's headers replace them; Content-Length for a body. */
function requestHeaders(outgoing: Outgoing): Record<string, string> {
  const own = without(
    { "user-agent": USER_AGENT, accept: "*/*" },
    new Set(Object.keys(outgoing.headers).map((n) => n.toLowerCase())),
  );
  const length =
    outgoing.body === undefined ? {} : { "content-length": String(Buffer.byteLength(outgoing.body)) };
  return { ...own, ...outgoing.headers, ...length };
}
