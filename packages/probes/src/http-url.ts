import { utf8HeaderValue } from "./http-response.js";
import { ProbeFailure } from "./probe-failure.js";

/** The http probe's URLs: the one asked for, each redirect's target, and the headers each hop may carry. */

/** `headers` without the names in `names` (lower-case). */
export function without(headers: Record<string, string>, names: Set<string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !names.has(name.toLowerCase())));
}

/** The probe's own URL: http(s) only, anything else is invalid_target. */
export function parseUrl(text: string): URL {
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
export function redirectTarget(location: string, base: URL): URL {
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
