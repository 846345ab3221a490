import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { AppEnv } from "../../../http/context.js";
import { envelope, errorResponses, jsonContent, ok } from "../../../http/envelope.js";
import type { Router } from "../../../http/router.js";
import type { ApiForm } from "../../../http/security.js";
import { renderSharePage } from "../share-page.js";
import type { SharesService } from "../shares.js";
import { taskDocumentShape } from "../task-document.js";
import { originOf, shareSchema, toShareView } from "./share-task.js";

const sharedSchema = z.object({ share: shareSchema, ...taskDocumentShape }).openapi("SharedProbeTask");
const params = z.object({ id: z.string().max(64).openapi({ example: "shr_3q2Jx0b1WcYlW0g1cB9m2A" }) });
const note =
  "Public, no credentials. An unknown or revoked share → 404. The task view has the active form's shape; " +
  "`signatures` lets anyone check each signed result offline against the node's `public_key` in `GET " +
  "/v1/nodes` (docs/verify.md, `vantage verify`).";

/** The public face of share links: `GET /v1/shares/{id}` (JSON) and `GET /share/{id}` (HTML). */
export function registerPublicShare(
  app: Router,
  shares: SharesService,
  form: ApiForm,
  publicUrl: string | undefined,
): void {
  app.openapi(
    createRoute({
      tags: ["probes"],
      method: "get",
      path: "/v1/shares/{id}",
      summary: "A shared probe task as JSON",
      description: note,
      request: { params },
      responses: {
        200: { description: "The shared task", ...jsonContent(envelope(sharedSchema)) },
        ...errorResponses(404),
      },
    }),
    async (c) => {
      const { share, document } = await shares.shared(c.req.valid("param").id, form);
      c.header("Cache-Control", "no-cache");
      return ok(c, { share: toShareView(share, originOf(c, publicUrl)), ...document }, 200);
    },
  );
  app.openapi(
    createRoute({
      tags: ["probes"],
      method: "get",
      path: "/share/{id}",
      summary: "A shared probe task as a page (HTML, works without JavaScript)",
      description: `${note} The page carries Open Graph and Twitter card tags for link previews.`,
      request: { params },
      responses: {
        200: { description: "The page", content: { "text/html": { schema: z.string() } } },
        ...errorResponses(404),
      },
    }),
    (async (c: Context<AppEnv>) => {
      const { share, document } = await shares.shared(c.req.param("id") ?? "", form);
      const view = toShareView(share, originOf(c, publicUrl));
      c.header("Cache-Control", "no-cache");
      c.header("Content-Type", "text/html; charset=utf-8");
      return c.body(renderSharePage(document, { page: view.url, json: view.json_url }));
    }) as never,
  );
}
