import { createRoute, z } from "@hono/zod-openapi";
import { envelope, errorResponses, ok } from "../../../http/envelope.js";
import type { SecuredRoute } from "../../../http/route-kit.js";
import type { Router } from "../../../http/router.js";
import { wantsEventStream } from "../../../http/sse.js";
import { taskViewSchema, toTaskView } from "../result-schemas.js";
import type { ProbesService } from "../service.js";
import { eventStreamContent, type LiveOptions, openStream, streamNote } from "./stream-task.js";

/** `GET /v1/probe/tasks/{id}`: one route, the task view in the active form's shape. */
export function registerGetTask(
  app: Router,
  probes: ProbesService,
  common: SecuredRoute,
  live: LiveOptions,
): void {
  const { form } = common;
  const route = createRoute({
    method: "get",
    path: "/v1/probe/tasks/{id}",
    ...common,
    summary: "Read a probe task and its per-node results",
    description:
      "Form A polls here after creating a task; its results are stored as they arrive. Form B can read a " +
      "finished task again, at once after the answer and on any controller. A recent id that is not found " +
      "is a 404 after a short wait (up to 250 ms) for a write in flight. A task created with credentials " +
      "belongs to that account: read it with credentials of the same account (any other caller gets 404). " +
      "A task created without credentials is readable by anyone who has its id." +
      streamNote(
        "(200): what the task has so far, then what arrives until it finishes; a finished task's results and " +
          "`done` at once. A task running on another controller is followed as that controller stores its " +
          "results (a Form B task is stored only once finished: until then it is a 404 there)",
      ),
    request: {
      params: z.object({ id: z.string().max(64).openapi({ example: "task_mhb0v3k2x9a1b2c3d4e5f6a7" }) }),
    },
    responses: {
      200: {
        description:
          "The task (JSON), or with `Accept: text/event-stream` the task as it runs (Server-Sent Events)",
        content: { "application/json": { schema: envelope(taskViewSchema) }, ...eventStreamContent },
      },
      ...errorResponses(401, 404, 429),
    },
  });
  app.openapi(route, async (c) => {
    const viewer = c.get("principal")?.userId;
    if (wantsEventStream(c))
      return openStream(c, form, live, () => probes.follow(c.req.valid("param").id, viewer));
    const task = await probes.get(c.req.valid("param").id, viewer);
    return ok(c, toTaskView(task, form), 200);
  });
}
