import { createRoute, z } from "@hono/zod-openapi";
import { type ProbeType, probeTypes } from "@vantage/probes";
import { envelope, errorResponses, jsonBody, ok } from "../../http/envelope.js";
import type { Router } from "../../http/router.js";
import type { ApiForm } from "../../http/security.js";
import { formABodies, formACreatedSchema, fromFormA, toFormA } from "./form-a.js";
import { formBBodies, formBDoneSchema, fromFormB, toFormB } from "./form-b.js";
import { taskViewSchema, toTaskView } from "./result-schemas.js";
import { getProbeTask, type ProbeDeps, queueProbeTask, runProbeTask } from "./service.js";

const summaries: Record<ProbeType, string> = {
  http: "HTTP(S) request from several nodes: status, timings, TLS certificate",
  ping: "ICMP ping from several nodes: loss and round-trip times",
  dns: "DNS query from several nodes: answers, rcode, query time",
  tcp: "TCP connect from several nodes: connect time",
  traceroute: "Traceroute from several nodes: hops with their round-trip times",
};

const probeErrors = errorResponses(400, 413, 415, 422, 503);

function registerFormA(app: Router, deps: ProbeDeps, type: ProbeType): void {
  const route = createRoute({
    method: "post",
    path: `/v1/probe/${type}`,
    tags: ["probes"],
    summary: summaries[type],
    description:
      "Creates the task and answers at once with 202 and `status: queued`; the nodes run it in the background. " +
      "Poll `GET /v1/probe/tasks/{task_id}` for the results.",
    request: jsonBody(formABodies[type]),
    responses: {
      202: {
        description: "Task queued",
        content: { "application/json": { schema: envelope(formACreatedSchema) } },
      },
      ...probeErrors,
    },
  });
  app.openapi(route, async (c) => {
    const body = c.req.valid("json") as never;
    const created = await queueProbeTask(deps, fromFormA[type](body));
    return ok(c, toFormA(created.id), 202);
  });
}

function registerFormB(app: Router, deps: ProbeDeps, type: ProbeType): void {
  const route = createRoute({
    method: "post",
    path: `/v1/probe/${type}`,
    tags: ["probes"],
    summary: summaries[type],
    description:
      "Runs the probe on every chosen node and answers when all have answered or timed out (each node has " +
      "its own deadline: the probe's timeout plus 1 s). Failed nodes are entries with `success: false`.",
    request: jsonBody(formBBodies[type]),
    responses: {
      200: {
        description: "Task done",
        content: { "application/json": { schema: envelope(formBDoneSchema(type)) } },
      },
      ...probeErrors,
    },
  });
  app.openapi(route, async (c) => {
    const body = c.req.valid("json") as never;
    const task = await runProbeTask(deps, fromFormB[type](body));
    return ok(c, toFormB(task), 200);
  });
}

const getTaskRoute = createRoute({
  method: "get",
  path: "/v1/probe/tasks/{id}",
  tags: ["probes"],
  summary: "Read a probe task and its per-node results",
  description:
    "Form A polls here after creating a task; its results are stored as they arrive. Form B can read a " +
    "finished task again, at once after the answer and on any controller. A recent id that is not found " +
    "is a 404 after a short wait (up to 250 ms) for a write in flight.",
  request: {
    params: z.object({ id: z.string().max(64).openapi({ example: "task_mhb0v3k2x9a1b2c3d4e5f6a7" }) }),
  },
  responses: {
    200: { description: "The task", content: { "application/json": { schema: envelope(taskViewSchema) } } },
    ...errorResponses(404),
  },
});

export function registerProbeRoutes(app: Router, deps: ProbeDeps, form: ApiForm): void {
  for (const type of probeTypes) {
    if (form === "a") registerFormA(app, deps, type);
    else registerFormB(app, deps, type);
  }
  app.openapi(getTaskRoute, async (c) => {
    const task = await getProbeTask(deps, c.req.valid("param").id);
    return ok(c, toTaskView(task, form), 200);
  });
}
