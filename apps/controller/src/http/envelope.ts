import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { type AppEnv, requestIdOf } from "./context.js";
import { errorCodes } from "./errors.js";

/** Wraps a data schema in the success envelope `{data, request_id}` for the OpenAPI document. */
export function envelope<T extends z.ZodType>(data: T) {
  return z.object({ data, request_id: z.string() });
}

export const errorEnvelopeSchema = z
  .object({
    error: z.object({
      code: z.enum(Object.keys(errorCodes) as [keyof typeof errorCodes, ...(keyof typeof errorCodes)[]]),
      message: z.string(),
      details: z.unknown().optional(),
    }),
    request_id: z.string(),
  })
  .openapi("Error");

/** `content` of a JSON request or response entry in a route definition. */
export function jsonContent<S extends z.ZodType>(schema: S) {
  return { content: { "application/json": { schema } } };
}

/** `request` entry of a route with a required JSON body. */
export function jsonBody<S extends z.ZodType>(schema: S) {
  return { body: { required: true, ...jsonContent(schema) } };
}

/** Sends `{data, request_id}`. */
export function ok<T, S extends ContentfulStatusCode = 200>(c: Context<AppEnv>, data: T, status?: S) {
  return c.json({ data, request_id: requestIdOf(c) }, (status ?? 200) as S);
}

/** What a 429 carries: when to come back, and the limit that refused the call. */
const limitHeaders = {
  "Retry-After": { description: "Seconds until the call can succeed", schema: { type: "integer" as const } },
  "RateLimit-Limit": { description: "The limit that refused the call", schema: { type: "integer" as const } },
  "RateLimit-Remaining": { description: "What is left of it (0)", schema: { type: "integer" as const } },
  "RateLimit-Reset": {
    description: "Seconds until its window starts afresh",
    schema: { type: "integer" as const },
  },
};

/** Standard error responses for a route's OpenAPI entry. */
export function errorResponses(...statuses: number[]) {
  const descriptions: Record<number, string> = {
    400: "Invalid request (validation_error, unknown_field, malformed_json)",
    401: "Missing, invalid, expired or revoked credentials",
    403: "Credentials lack the needed scope",
    404: "Not found (also for another account's resources)",
    409: "Conflict with an existing resource",
    413: "Body over the size limit",
    415: "Body is not JSON",
    422: "Target not allowed",
    429: "Over a limit: `rate_limited` (per IP, per key) or `quota_exceeded` (the plan's quota)",
    502: "Upstream failure",
    503: "Service or nodes unavailable",
    504: "Upstream timed out",
  };
  const out: Record<
    number,
    {
      description: string;
      content: { "application/json": { schema: typeof errorEnvelopeSchema } };
      headers?: typeof limitHeaders;
    }
  > = {};
  for (const s of statuses) {
    out[s] = {
      description: descriptions[s] ?? "Error",
      content: { "application/json": { schema: errorEnvelopeSchema } },
      ...(s === 429 ? { headers: limitHeaders } : {}),
    };
  }
  return out;
}
