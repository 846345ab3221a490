import { z } from "@hono/zod-openapi";

export const quotaNote =
  " Probes are counted in node-probes per hour (a task on 3 nodes costs 3): without credentials per client " +
  "IP (IPv6 per /64; 429 `rate_limited`), with them per account against the plan's quota (429 " +
  "`quota_exceeded`; see `GET /v1/account/usage`). `RateLimit-Limit`, `RateLimit-Remaining` and " +
  "`RateLimit-Reset` tell what is left; a request that does not fit is refused whole, with `Retry-After`.";

export const quotaHeaders = {
  "RateLimit-Limit": {
    description: "The caller's node-probes per hour (absent when unlimited)",
    schema: { type: "integer" as const },
  },
  "RateLimit-Remaining": {
    description: "Node-probes left in this hour, after this request",
    schema: { type: "integer" as const },
  },
  "RateLimit-Reset": {
    description: "Seconds until the hour's quota starts afresh",
    schema: { type: "integer" as const },
  },
};

export const quotaSchema = z.object({
  caller: z.enum(["ip", "account"]).openapi({ description: "Whose quota: the client IP's or the account's" }),
  limit: z.number().int().nullable().openapi({ description: "Node-probes per hour; null when unlimited" }),
  used: z
    .number()
    .int()
    .openapi({ description: "Node-probes spent in this hour (0 when unlimited: nothing is counted)" }),
  remaining: z.number().int().nullable().openapi({ description: "Left in this hour; null when unlimited" }),
  reset_s: z.number().int().openapi({ description: "Seconds until the hour's quota starts afresh" }),
});
