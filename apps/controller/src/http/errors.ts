import type { ContentfulStatusCode } from "hono/utils/http-status";

/** Every error code the API returns, with the status it travels with. */
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

export function errorBody(code: ErrorCode, message: string, requestId: string, details?: unknown) {
  return {
    error: details === undefined ? { code, message } : { code, message, details },
    request_id: requestId,
  };
}
