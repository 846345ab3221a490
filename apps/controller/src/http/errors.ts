import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { ZodError } from "zod";

/**
 * Every error code the API returns, with the status it travels with. The dashboard shows each as a
 * sentence in every locale (apps/web/src/error-messages.ts): apps/web/test/i18n-complete.test.ts fails
 * until a new code has one.
 */
export const errorCodes = {
  validation_error: 400,
  unknown_field: 400,
  malformed_json: 400,
  malformed_request: 400,
  invalid_signature: 400,
  unauthorized: 401,
  mcp_token_not_accepted: 401,
  forbidden: 403,
  email_not_verified: 403,
  insufficient_scope: 403,
  not_found: 404,
  method_not_allowed: 405,
  not_acceptable: 406,
  request_timeout: 408,
  conflict: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  expectation_failed: 417,
  target_not_allowed: 422,
  unprocessable: 422,
  rate_limited: 429,
  quota_exceeded: 429,
  headers_too_large: 431,
  internal_error: 500,
  upstream_error: 502,
  no_nodes_available: 503,
  billing_not_configured: 503,
  source_unavailable: 503,
  unavailable: 503,
  upstream_timeout: 504,
} as const satisfies Record<string, ContentfulStatusCode>;

export type ErrorCode = keyof typeof errorCodes;

export interface ErrorDetail {
  path?: string;
  message: string;
  [key: string]: unknown;
}

export class ApiError extends Error {
  readonly status: ContentfulStatusCode;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: unknown,
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.status = errorCodes[code];
  }
}

/** 503 `unavailable` for a passing condition (database away, NATS reconnecting): come back in 5 s. */
export function unavailableError(message: string): ApiError {
  return new ApiError("unavailable", message, undefined, { "Retry-After": "5" });
}

/**
 * A one-field error: `<path>: <message>`, with that one `{path, message}` detail (and `extra`'s fields after
 * them). 400 `validation_error` unless `code` says otherwise.
 */
export function fieldError(
  path: string,
  message: string,
  code: ErrorCode = "validation_error",
  extra?: Record<string, unknown>,
): ApiError {
  return new ApiError(code, `${path}: ${message}`, [{ path, message, ...extra }]);
}

/** 404 `not_found`: `<what> not found`, the same answer for an unknown id and another account's. */
export function notFound(what: string): ApiError {
  return new ApiError("not_found", `${what} not found`);
}

interface IssueLike {
  code: string;
  path: PropertyKey[];
  message: string;
  keys?: string[];
  expected?: string;
}

/**
 * A number read from text (query fields, `z.coerce.number()`) that is not one: zod says what the coercion
 * made of it ("received NaN", "received Infinity"), and "expected int, received number" for a fraction,
 * neither of which the caller sent. Plain words instead; every other message is zod's.
 */
function messageOf(issue: IssueLike): string {
  if (issue.code !== "invalid_type") return issue.message;
  if (issue.expected === "int") return "expected a whole number";
  if (issue.expected === "number" && /received (NaN|Infinity|-Infinity)$/.test(issue.message)) {
    return "expected a number";
  }
  return issue.message;
}

/** Where a value came from, as the first segment of a detail path names it. */
const targetNames: Record<string, string> = {
  json: "body",
  form: "body",
  param: "path",
  query: "query",
  header: "header",
};

/** At most this many `details` entries, plus one saying how many more there were. */
export const MAX_ERROR_DETAILS = 20;

/**
 * Turns zod issues into `{path, message}` details, paths prefixed with where the value came from: one per
 * problem (each unknown key of an `unrecognized_keys` issue is one), the first `MAX_ERROR_DETAILS` of them,
 * then `{path: <target>, message: "… and N more issues"}` when there were more, so a body with 10,000
 * unknown keys gets a short answer, not a megabyte of them.
 */
export function issuesToDetails(error: ZodError, rawTarget: string) {
  const target = targetNames[rawTarget] ?? rawTarget;
  const details: { path: string; message: string }[] = [];
  let more = 0;
  for (const issue of error.issues as unknown as IssueLike[]) {
    const unknownKeys = issue.code === "unrecognized_keys" && issue.keys ? issue.keys : undefined;
    const count = unknownKeys ? unknownKeys.length : 1;
    const room = MAX_ERROR_DETAILS - details.length;
    if (room <= 0) {
      more += count;
      continue;
    }
    const base = [target, ...issue.path.map(String)].join(".");
    if (unknownKeys) {
      for (const key of unknownKeys.slice(0, room))
        details.push({ path: `${base}.${key}`, message: "unknown field" });
      more += Math.max(0, unknownKeys.length - room);
    } else {
      details.push({ path: base, message: messageOf(issue) });
    }
  }
  if (more > 0)
    details.push({ path: target, message: `… and ${more} more ${more === 1 ? "issue" : "issues"}` });
  return details;
}

export function validationError(error: ZodError, target: string): ApiError {
  const details = issuesToDetails(error, target);
  // The code follows the first issue, which the message names too; `details` lists the first ones.
  const unknown = (error.issues as unknown as IssueLike[])[0]?.code === "unrecognized_keys";
  const first = details[0];
  const summary = first ? `${first.path}: ${first.message}` : "invalid request";
  return new ApiError(unknown ? "unknown_field" : "validation_error", summary, details);
}

export function errorBody(code: ErrorCode, message: string, requestId: string, details?: unknown) {
  return {
    error: details === undefined ? { code, message } : { code, message, details },
    request_id: requestId,
  };
}
