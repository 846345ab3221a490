import { createRoute, z } from "@hono/zod-openapi";
import { requirePrincipal } from "../../../http/auth.js";
import { envelope, errorResponses, jsonBody, jsonContent, ok } from "../../../http/envelope.js";
import { registerPagedList, type SecuredRoute } from "../../../http/route-kit.js";
import type { Router } from "../../../http/router.js";
import { pageBody, pageIdParam, pagePatch, pageView } from "../schemas.js";
import type { StatusPagesService } from "../service.js";
import { toPage } from "../views.js";

const rules =
  "`slug` is unique across the deployment (409 `conflict`); `components` name the caller's own monitors " +
  "(one per component, or several as a group); another account's or an unknown monitor id → 400. The page " +
  "is public at `/status/{slug}` (and at `/` of `custom_domain`).";

/** Status pages: create, list, get, update, delete. The same contract in both forms (a documented extension). */
export function registerPageRoutes(app: Router, svc: StatusPagesService, common: SecuredRoute, base: string) {
  const view = (p: Parameters<typeof toPage>[0]) => toPage(p, base);
  app.openapi(
    createRoute({
      ...common,
      method: "post",
      path: "/v1/status-pages",
      summary: "Create a public status page",
      description: `${rules} An account has at most 20 pages.`,
      request: jsonBody(pageBody),
      responses: {
        201: { description: "Page created", ...jsonContent(envelope(pageView)) },
        ...errorResponses(400, 401, 403, 409),
      },
    }),
    async (c) => {
      const p = await svc.createPage(requirePrincipal(c).userId, c.req.valid("json"));
      return ok(c, view(p), 201);
    },
  );
  registerPagedList(app, {
    common,
    path: "/v1/status-pages",
    summary: "List the caller's status pages, newest first",
    description: "A page beyond the last answers with no items and the same total.",
    answer: "A page of status pages",
    item: pageView,
    pageSize: 20,
    list: (c, pg) => svc.listPages(requirePrincipal(c).userId, pg),
    view,
  });
  app.openapi(
    createRoute({
      ...common,
      method: "get",
      path: "/v1/status-pages/{id}",
      summary: "Get a status page",
      description: "Another account's id → 404.",
      request: { params: pageIdParam },
      responses: {
        200: { description: "The page", ...jsonContent(envelope(pageView)) },
        ...errorResponses(401, 403, 404),
      },
    }),
    async (c) => ok(c, view(await svc.getPage(requirePrincipal(c).userId, c.req.valid("param").id)), 200),
  );
  app.openapi(
    createRoute({
      ...common,
      method: "patch",
      path: "/v1/status-pages/{id}",
      summary: "Change a status page",
      description: `Fields given replace the stored ones; \`null\` clears \`logo_url\` or \`custom_domain\`. ${rules}`,
      request: { params: pageIdParam, ...jsonBody(pagePatch) },
      responses: {
        200: { description: "The changed page", ...jsonContent(envelope(pageView)) },
        ...errorResponses(400, 401, 403, 404, 409),
      },
    }),
    async (c) => {
      const p = await svc.updatePage(
        requirePrincipal(c).userId,
        c.req.valid("param").id,
        c.req.valid("json"),
      );
      return ok(c, view(p), 200);
    },
  );
  app.openapi(
    createRoute({
      ...common,
      method: "delete",
      path: "/v1/status-pages/{id}",
      summary: "Delete a status page with its incidents, maintenance and subscribers",
      description: "Another account's id → 404.",
      request: { params: pageIdParam },
      responses: {
        200: {
          description: "Deleted",
          ...jsonContent(envelope(z.null())),
        },
        ...errorResponses(401, 403, 404),
      },
    }),
    async (c) => {
      await svc.deletePage(requirePrincipal(c).userId, c.req.valid("param").id);
      return ok(c, null, 200);
    },
  );
}
