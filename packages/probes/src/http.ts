import { request as httpRequest, type IncomingMessage, type RequestOptions } from "node:http";
import { request as httpsRequest } from "node:https";
import { isIP, type LookupFunction } from "node:net";
import type { TLSSocket } from "node:tls";
import { elapsedMs, now } from "./clock.js";
import { type BodyExcerpt, cappedHeaders, readExcerpt, utf8HeaderValue } from "./http-response.js";
import { summarizeTls, type TlsSummary } from "./http-tls.js";
import { onAbort, settle } from "./outcome.js";
import { ProbeFailure, toProbeFailure } from "./probe-failure.js";
import { sameAddress } from "./same-address.js";
import { resolveAndCheck } from "./target-guard.js";
import {
  type HttpParams,
  type HttpResult,
  httpParamsSchema,
  type Probe,
  type ProbeContext,
} from "./types.js";

const USER_AGENT = "Vantage probe (+https://github.com/vantage)";
const REDIRECTS = new Set([301, 302, 303, 307, 308]);

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
  let method = params.method;
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(), params.timeout_ms);
  const removeAbort = onAbort(ctx.signal, () => deadline.abort());
  try {
    for (;;) {
      const hop = await oneRequest(url, method, params, ctx, deadline.signal, started, resolveTarget);
      const status = hop.result.status_code ?? 0;
      if (!params.follow_redirects || !REDIRECTS.has(status) || hop.location === undefined) {
        const detail: HttpResult = { ...hop.result, redirects };
        return { detail, latency_ms: detail.timings.total };
      }
      redirects.push({ url: url.href, status_code: status });
      redirecting = hop;
      if (redirects.length > params.max_redirects) {
        throw new ProbeFailure("too_many_redirects", `more than ${params.max_redirects} redirects`);
      }
      url = redirectTarget(hop.location, url);
      // 303 always, and 301/302 after a non-GET, turn into GET the way browsers and curl -L do.
      if (status === 303 || ((status === 301 || status === 302) && method !== "GET" && method !== "HEAD")) {
        method = "GET";
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

function parseUrl(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new ProbeFailure("invalid_target", `not a URL: ${text}`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new ProbeFailure("invalid_target", `unsupported scheme ${url.protocol}`);
  }
  return url;
}

/** A Location resolved against the URL that sent it, its raw bytes read as UTF-8 as curl and browsers do. */
function redirectTarget(location: string, base: URL): URL {
  const text = utf8HeaderValue(location);
  let url: URL;
  try {
    url = new URL(text, base);
  } catch {
    throw new ProbeFailure("invalid_target", `redirect to an invalid URL: ${text}`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new ProbeFailure("invalid_target", `redirect to unsupported scheme ${url.protocol}`);
  }
  return url;
}

interface Marks {
  connectedAt: bigint | null;
  connectMs: number | null;
  tlsMs: number | null;
  tls: TlsSummary | null;
  /** When the connection was ready for the request (after TLS for https). */
  ready: bigint | null;
}

interface Hop {
  result: Omit<HttpResult, "redirects">;
  /** The Location header whole (the one in `result.headers` is capped for storage). */
  location: string | undefined;
}

async function oneRequest(
  url: URL,
  method: HttpParams["method"],
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
  const pinned: LookupFunction = (_name, options, callback) => {
    if (options.all) callback(null, [{ address: target.address, family: target.family }]);
    else callback(null, target.address, target.family);
  };
  const https = url.protocol === "https:";
  const options: RequestOptions & { servername?: string; rejectUnauthorized?: boolean } = {
    host: hostname,
    port: url.port === "" ? (https ? 443 : 80) : Number(url.port),
    path: `${url.pathname}${url.search}`,
    method,
    headers: { "user-agent": USER_AGENT, accept: "*/*" },
    lookup: pinned,
    family: target.family,
    agent: false,
    signal,
    ...(https
      ? { rejectUnauthorized: false, ...(isIP(hostname) === 0 ? { servername: hostname } : {}) }
      : {}),
  };
  // Filled in by socket events; an object because closures assign it (TS would narrow plain lets to null).
  const m: Marks = { connectedAt: null, connectMs: null, tlsMs: null, tls: null, ready: null };
  const partial = (): Omit<HttpResult, "redirects"> => ({
    resolved_ip: target.address,
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
  // Restarted when the socket has its (pinned) address, right before connect(2): building the request
  // and handing out the socket take Node a fraction of a millisecond that is not network time.
  let connectStart = now();

  const res = await new Promise<IncomingMessage>((resolve, reject) => {
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
        if (socket.remoteAddress && !sameAddress(socket.remoteAddress, target.address)) {
          req.destroy(
            new ProbeFailure(
              "target_not_allowed",
              `connected to ${socket.remoteAddress}, not ${target.address}`,
            ),
          );
        }
      });
      socket.once("secureConnect", () => {
        m.ready = now();
        m.tlsMs = m.connectedAt === null ? null : elapsedMs(m.connectedAt, m.ready);
        m.tls = summarizeTls(socket as TLSSocket);
      });
    });
    req.on("error", (error) => {
      const failure = signal.aborted
        ? new ProbeFailure("timeout", `no complete answer within ${params.timeout_ms} ms`)
        : toProbeFailure(error);
      // A failure after TCP connect but before the handshake finished is the TLS layer's.
      const code =
        https && m.connectedAt !== null && m.tls === null && failure.code === "probe_error"
          ? "tls_error"
          : failure.code;
      reject(new ProbeFailure(code, failure.message, partial()));
    });
    req.end();
  });
  const firstByte = now();
  const headers = cappedHeaders(res.rawHeaders);
  const result = (body: BodyExcerpt): Omit<HttpResult, "redirects"> => ({
    resolved_ip: target.address,
    status_code: res.statusCode ?? null,
    headers,
    timings: {
      dns: dnsMs,
      connect: m.connectMs,
      tls: m.tlsMs,
      first_byte: m.ready === null ? null : elapsedMs(m.ready, firstByte),
      total: elapsedMs(exchangeStart),
    },
    tls: m.tls,
    body_excerpt: body.excerpt,
    body_bytes: body.bytes,
    body_truncated: body.truncated,
  });
  const body = readExcerpt(res);
  try {
    const complete = await body.done;
    // A body without a length ends when the connection does, and the deadline closing it looks the same:
    // a body cut short by the deadline is a timeout, not a success (one cut at the excerpt cap is fine).
    if (signal.aborted && !complete.truncated) throw new Error("aborted at the deadline");
    return { result: result(complete), location: res.headers.location };
  } catch (error) {
    const failure = signal.aborted
      ? new ProbeFailure("timeout", "body not complete in time")
      : toProbeFailure(error);
    // The headers and whatever part of the body had arrived.
    throw new ProbeFailure(failure.code, failure.message, result(body.soFar()));
  }
}
