import { z } from "@hono/zod-openapi";
import {
  HTTP_MAX_REQUEST_HEADERS,
  httpKeywordSchema,
  httpParamsConflicts,
  httpRequestBodySchema,
  httpRequestHeadersSchema,
} from "@vantage/probes";
import { limitEntries } from "../../http/body-bounds.js";
import { hasUnstorableChars } from "../../lib/unstorable-text.js";
import { agentsNote } from "./fields.js";

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
