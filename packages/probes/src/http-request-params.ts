import * as z from "zod";

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
