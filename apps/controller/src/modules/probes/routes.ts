import { createRoute, z } from "@hono/zod-openapi";
import { type ProbeType, probeTypes } from "@vantage/probes";
import type { Context } from "hono";
import type { AppDeps } from "../../app.js";
import { optionalAuth } from "../../http/auth.js";
import type { AppEnv } from "../../http/context.js";
import { envelope, errorResponses, jsonBody, ok } from "../../http/envelope.js";
import { type RateLimitStatus, rateLimitHeaders } from "../../http/rate-limit.js";
import { setResponseHeader } from "../../http/response-headers.js";
import type { Router } from "../../http/router.js";
import { type ApiForm, optionalAuthSecurity } from "../../http/security.js";
import { formABodies, formACreatedSchema, fromFormA, toFormA } from "./form-a.js";
import { formBBodies, formBDoneSchema, fromFormB, toFormB } from "./form-b.js";
import type { ProbeCaller } from "./quota.js";
import { taskViewSchema, toTaskView } from "./result-schemas.js";
import { getProbeTask, type ProbeDeps, queueProbeTask, runProbeTask } from "./service.js";

const summaries: Record<ProbeType, string> = {
  http: "HTTP(S) request from several nodes: status, timings, TLS certificate",
  ping: "ICMP ping from several nodes: loss and round-trip times",
  dns: "DNS query from several nodes: answers, rcode, query time",
  tcp: "TCP connect from several nodes: connect time",
  traceroute: "Traceroute from several nodes: hops with their round-trip times",
};

const probeErrors = errorResponses(400, 401, 413, 415, 422, 429, 503);

const quotaNote =
  " Anonymous calls are limited per client IP, calls with credentials per account, in node-probes per hour " +
  "(a task on 3 nodes costs 3); `RateLimit-Limit`, `RateLimit-Remaining` and `RateLimit-Reset` tell what " +
  "is left, and a request that does not fit is refused whole with 429 `rate_limited` and `Retry-After`.";

const quotaHeaders = {
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

const quotaSchema = z.object({
  caller: z.enum(["ip", "account"]).openapi({ description: "Whose quota: the client IP's or the account's" }),
  limit: z.number().int().nullable().openapi({ description: "Node-probes per hour; null when unlimited" }),
  used: z
    .number()
    .int()
    .openapi({ description: "Node-probes spent in this hour (0 when unlimited: nothing is counted)" }),
  remaining: z.number().int().nullable().openapi({ description: "Left in this hour; null when unlimited" }),
  reset_s: z.number().int().openapi({ description: "Seconds until the hour's quota starts afresh" }),
});

/** The account behind the request's credentials, else its client IP. */
function callerOf(c: Context<AppEnv>): ProbeCaller {
  const principal = c.get("principal");
  return principal ? { kind: "account", userId: principal.userId } : { kind: "ip", ip: c.get("clientIp") };
}

function setQuotaHeaders(c: Context<AppEnv>, quota: RateLimitStatus | undefined): void {
  if (quota) for (const [k, v] of Object.entries(rateLimitHeaders(quota))) setResponseHeader(c, k, v);
}

function registerFormA(app: Router, deps: ProbeDeps, appDeps: AppDeps, type: ProbeType): void {
  const route = createRoute({
    method: "post",
    path: `/v1/probe/${type}`,
    tags: ["probes"],
    summary: summaries[type],
    description:
      "Creates the task and answers at once with 202 and `status: queued`; the nodes run it in the background. " +
      "Poll `GET /v1/probe/tasks/{task_id}` for the results." +
      quotaNote,
    security: optionalAuthSecurity("a"),
    middleware: [optionalAuth(appDeps)] as const,
    request: jsonBody(formABodies[type]),
    responses: {
      202: {
        description: "Task queued",
        headers: quotaHeaders,
        content: { "application/json": { schema: envelope(formACreatedSchema) } },
      },
      ...probeErrors,
    },
  });
  app.openapi(route, async (c) => {
    const body = c.req.valid("json") as never;
    const created = await queueProbeTask(deps, { ...fromFormA[type](body), caller: callerOf(c) });
    setQuotaHeaders(c, created.quota);
    return ok(c, toFormA(created.value), 202);
  });
}

function registerFormB(app: Router, deps: ProbeDeps, appDeps: AppDeps, type: ProbeType): void {
  const route = createRoute({
    method: "post",
    path: `/v1/probe/${type}`,
    tags: ["probes"],
    summary: summaries[type],
    description:
      "Runs the probe on every chosen node and answers when all have answered or timed out (each node has " +
      "its own deadline: the probe's timeout plus 1 s). Failed nodes are entries with `success: false`." +
      quotaNote,
    security: optionalAuthSecurity("b"),
    middleware: [optionalAuth(appDeps)] as const,
    request: jsonBody(formBBodies[type]),
    responses: {
      200: {
        description: "Task done",
        headers: quotaHeaders,
        content: { "application/json": { schema: envelope(formBDoneSchema(type)) } },
      },
      ...probeErrors,
    },
  });
  app.openapi(route, async (c) => {
    const body = c.req.valid("json") as never;
    const created = await runProbeTask(deps, { ...fromFormB[type](body), caller: callerOf(c) });
    setQuotaHeaders(c, created.quota);
    return ok(c, toFormB(created.value), 200);
  });
}

function getTaskRoute(form: ApiForm, appDeps: AppDeps) {
  return createRoute({
    method: "get",
    path: "/v1/probe/tasks/{id}",
    tags: ["probes"],
    summary: "Read a probe task and its per-node results",
    description:
      "Form A polls here after creating a task; its results are stored as they arrive. Form B can read a " +
      "finished task again, at once after the answer and on any controller. A recent id that is not found " +
      "is a 404 after a short wait (up to 250 ms) for a write in flight. A task created with credentials " +
      "belongs to that account: read it with credentials of the same account (any other caller gets 404). " +
      "A task created without credentials is readable by anyone who has its id.",
    security: optionalAuthSecurity(form),
    middleware: [optionalAuth(appDeps)] as const,
    request: {
      params: z.object({ id: z.string().max(64).openapi({ example: "task_mhb0v3k2x9a1b2c3d4e5f6a7" }) }),
    },
    responses: {
      200: { description: "The task", content: { "application/json": { schema: envelope(taskViewSchema) } } },
      ...errorResponses(401, 404),
    },
  });
}

export function registerProbeRoutes(app: Router, deps: ProbeDeps, appDeps: AppDeps, form: ApiForm): void {
  for (const type of probeTypes) {
    if (form === "a") registerFormA(app, deps, appDeps, type);
    else registerFormB(app, deps, appDeps, type);
  }
  const quotaRoute = createRoute({
    method: "get",
    path: "/v1/probe/quota",
    tags: ["probes"],
    summary: "The caller's probe quota: what is left this hour, without spending any",
    description: `Same caller rules as the probe routes: credentials name an account, else the client IP counts.${quotaNote}`,
    security: optionalAuthSecurity(form),
    middleware: [optionalAuth(appDeps)] as const,
    responses: {
      200: { description: "The quota", content: { "application/json": { schema: envelope(quotaSchema) } } },
      ...errorResponses(401),
    },
  });
  app.openapi(quotaRoute, (c) => {
    const caller = callerOf(c);
    const q = deps.quota.peek(caller);
    const now = Date.now();
    const hour = 3_600_000;
    return ok(
      c,
      {
        caller: caller.kind,
        limit: q?.limit ?? null,
        used: q?.count ?? 0,
        remaining: q?.remaining ?? null,
        reset_s: Math.ceil(((q?.resetAt ?? Math.ceil(now / hour) * hour) - now) / 1000),
      },
      200,
    );
  });
  app.openapi(getTaskRoute(form, appDeps), async (c) => {
    const task = await getProbeTask(deps, c.req.valid("param").id, c.get("principal")?.userId);
    return ok(c, toTaskView(task, form), 200);
  });
}
