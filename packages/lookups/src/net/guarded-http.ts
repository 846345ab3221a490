import http from "node:http";
import https from "node:https";
import type { LookupFunction } from "node:net";
import { describeNetError } from "@vantage/probes/net-error";
import { type LookupContext, LookupError } from "../types.js";
import { resolveTarget } from "./resolve-target.js";

/*
 * The one HTTP client of the lookups (RDAP, the ICP provider and home page, the HSTS check). Why not global
 * fetch: the target guard must check the address actually connected to, and fetch (undici) resolves names
 * itself. Here every hop is resolved once through the guard and the socket is pinned to that address, so a
 * second answer cannot swap in a private one (DNS rebinding), redirects included.
 */

export interface GuardedRequest {
  /** POST sends `body` (alert webhooks); GET and HEAD send none. */
  method?: "GET" | "HEAD" | "POST";
  /** Merged over the default `user-agent`; with a body, `content-length` is its length whatever is given. */
  headers?: Record<string, string>;
  /** The request body, POST only; sent again on every redirect followed (alerts follow none). */
  body?: string | Buffer;
  /** Longest time for the whole exchange, redirects included, ms. */
  timeoutMs: number;
  /** Bodies larger than this are cut (`truncated: true`), not an error: a footer or a record fits. */
  maxBytes?: number;
  /** Redirects followed (3xx with Location); 0 answers the redirect itself. */
  maxRedirects?: number;
  /** Accept any certificate (reading a page's footer or headers, not vouching for it). */
  insecureTls?: boolean;
}

export interface GuardedResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  truncated: boolean;
  /** The URL that answered, after redirects. */
  url: string;
  /** The address connected to for that URL. */
  address: string;
}

const DEFAULT_MAX_BYTES = 1024 * 1024;

/**
 * Fetches `url` through the target guard. Rejects with LookupError only: `invalid_input` (not an http(s)
 * URL, a body without POST), `target_not_allowed`, `upstream_timeout` (time up or `ctx.signal` aborted),
 * `upstream_error` (cannot resolve, refused, reset, TLS failure, too many redirects).
 */
export async function guardedRequest(
  url: string,
  req: GuardedRequest,
  ctx: Pick<LookupContext, "allowPrivate" | "signal" | "lookup">,
): Promise<GuardedResponse> {
  if (req.body !== undefined && req.method !== "POST") {
    throw new LookupError("invalid_input", `a body needs method POST, not ${req.method ?? "GET"}`);
  }
  const timer = AbortSignal.timeout(req.timeoutMs);
  const signal = ctx.signal ? AbortSignal.any([ctx.signal, timer]) : timer;
  let current = url;
  for (let hop = 0; ; hop++) {
    const res = await once(current, req, ctx, signal);
    const location = res.headers.location;
    const redirect = res.status >= 300 && res.status < 400 && location !== undefined;
    if (!redirect || hop >= (req.maxRedirects ?? 0)) return res;
    let next: URL;
    try {
      next = new URL(location, current);
    } catch {
      throw new LookupError("upstream_error", `${current} redirected to an invalid URL`);
    }
    current = next.href;
  }
}

async function once(
  url: string,
  req: GuardedRequest,
  ctx: Pick<LookupContext, "allowPrivate" | "signal" | "lookup">,
  signal: AbortSignal,
): Promise<GuardedResponse> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new LookupError("invalid_input", `not a URL: ${url}`);
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    throw new LookupError("invalid_input", `not an http(s) URL: ${url}`);
  }
  const host = parsed.hostname.replace(/^\[|\]$/g, "");
  const { address, family } = await resolveTarget(host, ctx, signal, {
    subject: url,
    timeout: () => timeoutError(url),
  });
  // The pinned address: the agent of node:http calls this instead of the system resolver.
  const pinned: LookupFunction = (_name, options, callback) => {
    if ((options as { all?: boolean }).all) callback(null, [{ address, family }]);
    else callback(null, address, family);
  };
  const secure = parsed.protocol === "https:";
  const client = secure ? https : http;
  const body = req.body === undefined ? undefined : Buffer.from(req.body);
  const headers: Record<string, string> = { "user-agent": "vantage-lookups/1", ...req.headers };
  if (body !== undefined) {
    for (const name of Object.keys(headers)) {
      if (name.toLowerCase() === "content-length") delete headers[name];
    }
    headers["content-length"] = String(body.length);
  }
  return new Promise<GuardedResponse>((resolve, reject) => {
    const request = client.request(
      parsed,
      {
        method: req.method ?? "GET",
        headers,
        lookup: pinned,
        signal,
        agent: false,
        ...(secure
          ? { servername: isIpLiteral(host) ? undefined : host, rejectUnauthorized: !req.insecureTls }
          : {}),
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        let truncated = false;
        const max = req.maxBytes ?? DEFAULT_MAX_BYTES;
        const done = () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks),
            truncated,
            url,
            address,
          });
        res.on("data", (chunk: Buffer) => {
          if (truncated) return;
          const room = max - size;
          if (chunk.length >= room) {
            chunks.push(chunk.subarray(0, room));
            size = max;
            truncated = true;
            done();
            res.destroy();
            return;
          }
          chunks.push(chunk);
          size += chunk.length;
        });
        res.on("end", done);
        res.on("error", (error) => reject(fromNetError(error, url, signal)));
      },
    );
    request.on("error", (error) => reject(fromNetError(error, url, signal)));
    request.end(body);
  }).catch((error: unknown) => {
    // What node:http throws at once (a header value it will not send, say) is the caller's input.
    if (error instanceof LookupError) throw error;
    throw new LookupError("invalid_input", `${url}: ${(error as Error).message}`);
  });
}

function isIpLiteral(host: string): boolean {
  return /^[0-9.]+$/.test(host) || host.includes(":");
}

function fromNetError(error: Error, url: string, signal: AbortSignal): LookupError {
  if (signal.aborted) return timeoutError(url);
  // "no route to the network of 198.51.100.1 (connect ENETUNREACH)"; the bare code where it says enough.
  const code = (error as { code?: string }).code;
  return new LookupError(
    "upstream_error",
    `${url}: ${describeNetError(error)?.message ?? code ?? error.message}`,
  );
}

function timeoutError(url: string): LookupError {
  return new LookupError("upstream_timeout", `no answer from ${url} in time`);
}
