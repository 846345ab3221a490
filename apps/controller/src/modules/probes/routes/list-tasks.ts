import { z } from "@hono/zod-openapi";
import { probeTypes } from "@vantage/probes";
import { requirePrincipal } from "../../../http/auth.js";
import { registerPagedList, type SecuredRoute } from "../../../http/route-kit.js";
import type { Router } from "../../../http/router.js";
import type { TaskSummary } from "../history-repo.js";
import { taskHeadFields, toTaskHead } from "../result-schemas.js";
import type { ProbesService } from "../service.js";

/** The page size when the query names none (the route's and MCP's `list_tasks`). */
export const TASKS_PAGE_SIZE = 20;

export const taskSummarySchema = z
  .object({
    ...taskHeadFields,
    nodes: z.number().int().openapi({ description: "Nodes the task was sent to" }),
    succeeded: z.number().int().openapi({ description: "Nodes whose probe succeeded" }),
    share_id: z
      .string()
      .nullable()
      .openapi({ description: "The task's live share link (`/share/{share_id}`), or null" }),
  })
  .openapi("ProbeTaskSummary");

/** A task as the list shows it: its read's head, without results, with their counts. */
export function toTaskSummaryView(t: TaskSummary, form: "a" | "b") {
  return { ...toTaskHead(t, form), nodes: t.nodes, succeeded: t.succeeded, share_id: t.share_id };
}

/** `GET /v1/probe/tasks`: the caller's own tasks, newest first; `?page&limit` (A) or `?page&per_page` (B), `&type`. */
export function registerListTasks(app: Router, probes: ProbesService, common: SecuredRoute): void {
  registerPagedList(app, {
    common,
    path: "/v1/probe/tasks",
    summary: "List the caller's probe tasks, newest first",
    description:
      "Not in the spec; the same in both forms. The tasks created with this account's credentials, without " +
      "their results (read one with `GET /v1/probe/tasks/{id}`), kept `VANTAGE_PROBE_RETENTION_DAYS` (30 by " +
      "default; a shared task stays while its link lives). `type` narrows the list. Anonymous tasks belong " +
      "to no one and are not listed. A Form B task shows here moments after its answer (its write follows " +
      "the answer). Pages of 20 by default; a page beyond the last answers with no items and the same total.",
    answer: "A page of tasks",
    item: taskSummarySchema,
    pageSize: TASKS_PAGE_SIZE,
    filters: {
      type: z.enum(probeTypes).optional().openapi({ description: "Only tasks of this probe type" }),
    },
    list: (c, { page, limit, type }) => probes.list(requirePrincipal(c).userId, { page, limit, type }),
    view: (t: TaskSummary) => toTaskSummaryView(t, common.form),
  });
}
