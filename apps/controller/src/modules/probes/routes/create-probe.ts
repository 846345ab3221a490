import { createRoute, type z } from "@hono/zod-openapi";
import type { ProbeType } from "@vantage/probes";
import type { Context } from "hono";
import { type AppEnv, noteTaskId } from "../../../http/context.js";
import { envelope, errorResponses, jsonBody, ok } from "../../../http/envelope.js";
import { quotaCallerOf, setQuotaHeaders } from "../../../http/rate-limit/index.js";
import type { SecuredRoute } from "../../../http/route-kit.js";
import type { Router } from "../../../http/router.js";
import { wantsEventStream } from "../../../http/sse.js";
import type { CompletionHooks } from "../callback.js";
import { formABodies, formACreatedSchema, fromFormA, toFormA } from "../form-a.js";
import { formBBodies, formBDoneSchema, fromFormB, toFormB } from "../form-b.js";
import type { ProbeInput, ProbesService } from "../service.js";
import { quotaHeaders, quotaNote } from "./shared.js";
import { eventStreamContent, type LiveOptions, openStream, streamNote } from "./stream-task.js";

const summaries: Record<ProbeType, string> = {
  http: "HTTP(S) request from several nodes: status, timings, TLS certificate",
  ping: "ICMP ping from several nodes: loss and round-trip times",
  dns: "DNS query from several nodes: answers, rcode, query time",
  tcp: "TCP connect from several nodes: connect time",
  traceroute: "Traceroute from several nodes: hops with their round-trip times",
  mtr: "mtr from several nodes: per hop loss and round-trip statistics over N rounds, with each hop's network",
};

const probeErrors = errorResponses(400, 401, 413, 415, 422, 429, 503);

/** `POST /v1/probe/<type>` in Form A: the task is queued (202) and polled. */
function formARoute<S extends z.ZodType>(type: ProbeType, body: S, common: SecuredRoute) {
  return createRoute({
    ...common,
    method: "post",
    path: `/v1/probe/${type}`,
    summary: summaries[type],
    description:
      "Creates the task and answers at once with 202 and `status: queued`; the nodes run it in the background. " +
      "Poll `GET /v1/probe/tasks/{task_id}` for the results." +
      streamNote(
        "(200): the task from its start until every node has answered, the same task as without it",
      ) +
      quotaNote,
    "x-vantage-limit": "probes",
    request: jsonBody(body),
    responses: {
      200: {
        description: "With `Accept: text/event-stream`: the task's live results as Server-Sent Events",
        headers: quotaHeaders,
        content: eventStreamContent,
      },
      202: {
        description: "Task queued",
        headers: quotaHeaders,
        content: { "application/json": { schema: envelope(formACreatedSchema) } },
      },
      ...probeErrors,
    },
  });
}

/** `POST /v1/probe/<type>` in Form B: the answer waits for every node (200 with the results). */
function formBRoute<S extends z.ZodType>(type: ProbeType, body: S, common: SecuredRoute) {
  return createRoute({
    ...common,
    method: "post",
    path: `/v1/probe/${type}`,
    summary: summaries[type],
    description:
      "Runs the probe on every chosen node and answers when all have answered or timed out (each node has " +
      "its own deadline: the probe's timeout plus 1 s). Failed nodes are entries with `success: false`." +
      streamNote("instead: each node's result as it arrives, then the whole task") +
      quotaNote,
    "x-vantage-limit": "probes",
    request: jsonBody(body),
    responses: {
      200: {
        description:
          "Task done (JSON), or with `Accept: text/event-stream` its live results as Server-Sent Events",
        headers: quotaHeaders,
        content: {
          "application/json": { schema: envelope(formBDoneSchema(type)) },
          ...eventStreamContent,
        },
      },
      ...probeErrors,
    },
  });
}

/**
 * One route per probe type, in the active form. Each type is registered on its own line, its body schema
 * passed as its own type parameter, so that its handler sees its own body type (over a loop, or indexed by
 * a type parameter, the body widens to `unknown`).
 */
export function registerCreateProbes(
  app: Router,
  probes: ProbesService,
  common: SecuredRoute,
  live: LiveOptions,
  hooks?: CompletionHooks,
): void {
  const { form } = common;
  // The task's owner follows it (undefined: an anonymous task, readable by whoever has its id).
  const viewer = (c: Context<AppEnv>) => c.get("principal")?.userId;
  if (form === "a") {
    const queued = async (c: Context<AppEnv>, given: ProbeInput) => {
      // Every Form A body may name a callback (callback.ts): checked before anything runs.
      const callbackUrl = (c.req.valid("json" as never) as { callback_url?: string }).callback_url;
      if (callbackUrl !== undefined) hooks?.check(callbackUrl, "body.callback_url");
      const input = callbackUrl === undefined ? given : { ...given, callbackUrl };
      if (wantsEventStream(c))
        return openStream(c, form, live, async () => {
          const created = await probes.queue({ ...input, caller: quotaCallerOf(c) });
          noteTaskId(c, created.value);
          setQuotaHeaders(c, created.quota);
          return probes.follow(created.value, viewer(c));
        });
      const created = await probes.queue({ ...input, caller: quotaCallerOf(c) });
      noteTaskId(c, created.value);
      setQuotaHeaders(c, created.quota);
      return ok(c, toFormA(created.value, callbackUrl ? hooks?.secret(created.value) : undefined), 202);
    };
    app.openapi(formARoute("http", formABodies.http, common), (c) =>
      queued(c, fromFormA.http(c.req.valid("json"))),
    );
    app.openapi(formARoute("ping", formABodies.ping, common), (c) =>
      queued(c, fromFormA.ping(c.req.valid("json"))),
    );
    app.openapi(formARoute("dns", formABodies.dns, common), (c) =>
      queued(c, fromFormA.dns(c.req.valid("json"))),
    );
    app.openapi(formARoute("tcp", formABodies.tcp, common), (c) =>
      queued(c, fromFormA.tcp(c.req.valid("json"))),
    );
    app.openapi(formARoute("traceroute", formABodies.traceroute, common), (c) =>
      queued(c, fromFormA.traceroute(c.req.valid("json"))),
    );
    app.openapi(formARoute("mtr", formABodies.mtr, common), (c) =>
      queued(c, fromFormA.mtr(c.req.valid("json"))),
    );
    return;
  }
  const done = async (c: Context<AppEnv>, input: ProbeInput) => {
    if (wantsEventStream(c))
      return openStream(c, form, live, async () => {
        const started = await probes.start({ ...input, caller: quotaCallerOf(c) });
        noteTaskId(c, started.value.id);
        setQuotaHeaders(c, started.quota);
        return probes.follow(started.value.id, viewer(c));
      });
    const created = await probes.run({ ...input, caller: quotaCallerOf(c) });
    noteTaskId(c, created.value.id);
    setQuotaHeaders(c, created.quota);
    return ok(c, toFormB(created.value), 200);
  };
  app.openapi(formBRoute("http", formBBodies.http, common), (c) =>
    done(c, fromFormB.http(c.req.valid("json"))),
  );
  app.openapi(formBRoute("ping", formBBodies.ping, common), (c) =>
    done(c, fromFormB.ping(c.req.valid("json"))),
  );
  app.openapi(formBRoute("dns", formBBodies.dns, common), (c) => done(c, fromFormB.dns(c.req.valid("json"))));
  app.openapi(formBRoute("tcp", formBBodies.tcp, common), (c) => done(c, fromFormB.tcp(c.req.valid("json"))));
  app.openapi(formBRoute("traceroute", formBBodies.traceroute, common), (c) =>
    done(c, fromFormB.traceroute(c.req.valid("json"))),
  );
  app.openapi(formBRoute("mtr", formBBodies.mtr, common), (c) => done(c, fromFormB.mtr(c.req.valid("json"))));
}
