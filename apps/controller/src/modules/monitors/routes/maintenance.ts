import { createRoute, z } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import { requirePrincipal } from "../../../http/auth.js";
import type { AppEnv } from "../../../http/context.js";
import { envelope, errorResponses, jsonBody, jsonContent, ok } from "../../../http/envelope.js";
import { registerPagedList, securedRoute } from "../../../http/route-kit.js";
import type { Router } from "../../../http/router.js";
import type { ApiForm } from "../../../http/security.js";
import {
  toWindowView,
  windowCreateBody,
  windowIdParam,
  windowPatchBody,
  windowSchema,
} from "../maintenance-schemas.js";
import type { MaintenanceService, WindowInput } from "../maintenance-service.js";

const PATH = "/v1/maintenance-windows";
const date = (s: string | undefined) => (s === undefined ? undefined : new Date(s));

/**
 * Maintenance windows (a Vantage extension, the same in both forms but for the list's page fields): runs go
 * on; a state change inside a window alerts nobody; uptime counts its failing runs as maintenance.
 */
export function registerMaintenanceRoutes(
  app: Router,
  svc: MaintenanceService,
  auth: MiddlewareHandler<AppEnv>,
  form: ApiForm,
): void {
  const common = securedRoute("maintenance", form, auth);
  const one = jsonContent(envelope(windowSchema));

  registerPagedList(app, {
    common,
    path: PATH,
    summary: "The caller's maintenance windows, newest first",
    description: "Each with whether it is open now and its next occurrences.",
    answer: "A page of maintenance windows",
    item: windowSchema,
    pageSize: 100,
    list: (c, q) => svc.list(requirePrincipal(c), q),
    view: toWindowView,
  });

  app.openapi(
    createRoute({
      ...common,
      method: "post",
      path: PATH,
      summary: "Create a maintenance window: one-off or recurring, for some monitors or all",
      description:
        "One-off: `starts_at` and `ends_at`. Recurring: `recurrence` (an RRULE subset in an IANA zone, each " +
        "occurrence `duration_minutes` long). Runs go on inside a window; a state change there makes no " +
        "alert event, and uptime reports its runs under `maintenance`. A monitor that is not the caller's → " +
        "404 on `body.monitor_ids.<i>`; more than 100 windows → 409.",
      request: jsonBody(windowCreateBody),
      responses: {
        201: { description: "Window created", ...one },
        ...errorResponses(400, 401, 403, 404, 409),
      },
    }),
    async (c) => {
      const b = c.req.valid("json");
      const input: WindowInput = {
        title: b.title,
        scope: b.scope ?? "monitor",
        monitorIds: b.monitor_ids ?? [],
        startsAt: date(b.starts_at) ?? null,
        endsAt: date(b.ends_at) ?? null,
        recurrence: b.recurrence ?? null,
      };
      return ok(c, toWindowView(await svc.create(requirePrincipal(c), input)), 201);
    },
  );

  app.openapi(
    createRoute({
      ...common,
      method: "get",
      path: `${PATH}/{id}`,
      summary: "A maintenance window",
      description: "Another account's id → 404, as an unknown one.",
      request: { params: windowIdParam },
      responses: { 200: { description: "The window", ...one }, ...errorResponses(401, 403, 404) },
    }),
    async (c) => ok(c, toWindowView(await svc.get(requirePrincipal(c), c.req.valid("param").id)), 200),
  );

  app.openapi(
    createRoute({
      ...common,
      method: "patch",
      path: `${PATH}/{id}`,
      summary: "Change a maintenance window",
      description: "Omitted fields are unchanged; the result is checked as on creation.",
      request: { params: windowIdParam, ...jsonBody(windowPatchBody) },
      responses: { 200: { description: "The window", ...one }, ...errorResponses(400, 401, 403, 404) },
    }),
    async (c) => {
      const b = c.req.valid("json");
      const w = await svc.update(requirePrincipal(c), c.req.valid("param").id, {
        ...(b.title === undefined ? {} : { title: b.title }),
        ...(b.scope === undefined ? {} : { scope: b.scope }),
        ...(b.monitor_ids === undefined ? {} : { monitorIds: b.monitor_ids }),
        ...(b.starts_at === undefined ? {} : { startsAt: new Date(b.starts_at) }),
        ...(b.ends_at === undefined ? {} : { endsAt: new Date(b.ends_at) }),
        ...(b.recurrence === undefined ? {} : { recurrence: b.recurrence }),
      });
      return ok(c, toWindowView(w), 200);
    },
  );

  app.openapi(
    createRoute({
      ...common,
      method: "delete",
      path: `${PATH}/{id}`,
      summary: "Delete a maintenance window",
      description: "Changes it muted stay muted. Another account's id → 404.",
      request: { params: windowIdParam },
      responses: {
        200: { description: "Deleted", ...jsonContent(envelope(z.null())) },
        ...errorResponses(401, 403, 404),
      },
    }),
    async (c) => {
      await svc.remove(requirePrincipal(c), c.req.valid("param").id);
      return ok(c, null, 200);
    },
  );
}
