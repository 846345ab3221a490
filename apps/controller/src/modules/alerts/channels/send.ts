import { guardedRequest, LookupError } from "@vantage/lookups";
import type { HostLookup } from "@vantage/probes";
import type { OutgoingRequest } from "./types.js";

/** The most of an answer kept: vendors answer in a few bytes, an error page is cut. */
const MAX_ANSWER_BYTES = 64 * 1024;

export interface SendOptions {
  /** Lifts the target guard: private, loopback and metadata addresses are refused without it. */
  allowPrivate: boolean;
  /** Resolves the URL's host (tests); getaddrinfo when omitted. */
  lookup?: HostLookup | undefined;
  /** Longest time for the whole exchange, ms. */
  timeoutMs: number;
  /** Shutdown: stop waiting at once (a timeout error). */
  signal?: AbortSignal | undefined;
}

/**
 * Why a request got no answer. `retry` is false when trying again cannot help as things are: the URL is
 * refused by the target guard or is not an http(s) URL; true for a timeout or a network failure.
 */
export class SendError extends Error {
  constructor(
    readonly code: "target_not_allowed" | "invalid_url" | "timeout" | "network",
    message: string,
  ) {
    super(message);
    this.name = "SendError";
  }

  get retry(): boolean {
    return this.code === "timeout" || this.code === "network";
  }
}

/**
 * Makes one HTTP request of a channel through the target guard, the way probes reach a target: the host is
 * resolved once, checked, and the connection pinned to that address. Redirects are not followed (a
 * redirect is the answer). Resolves with any answer (the channel's `judge` reads it); rejects with
 * SendError when there is none.
 */
export async function sendHttp(
  req: Extract<OutgoingRequest, { kind: "http" }>,
  opts: SendOptions,
): Promise<{ status: number; body: string }> {
  try {
    const res = await guardedRequest(
      req.url,
      {
        method: req.method,
        headers: { "user-agent": "vantage-alerts/1", ...req.headers },
        body: req.body,
        timeoutMs: opts.timeoutMs,
        maxBytes: MAX_ANSWER_BYTES,
        maxRedirects: 0,
      },
      { allowPrivate: opts.allowPrivate, lookup: opts.lookup, signal: opts.signal },
    );
    return { status: res.status, body: res.body.toString("utf8") };
  } catch (error) {
    if (!(error instanceof LookupError)) throw error;
    const host = hostOf(req.url);
    // The lookups name the whole URL; a URL may carry a token, and these messages are logged and stored.
    const detail = error.message.split(req.url).join(host);
    switch (error.code) {
      case "target_not_allowed":
        throw new SendError("target_not_allowed", `refused to send to ${host}: ${detail}`);
      case "invalid_input":
        throw new SendError("invalid_url", detail);
      case "upstream_timeout":
        throw new SendError("timeout", `no answer from ${host} within ${opts.timeoutMs} ms`);
      default:
        throw new SendError("network", `could not reach ${detail}`);
    }
  }
}

/** Only the host: the URL may carry a token (Slack, DingTalk, WeCom). */
function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return "an invalid URL";
  }
}
