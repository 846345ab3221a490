import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { requirePrincipal } from "../../../http/auth.js";
import type { AppEnv } from "../../../http/context.js";
import { envelope, errorResponses, jsonContent, ok } from "../../../http/envelope.js";
import type { SecuredRoute } from "../../../http/route-kit.js";
import type { Router } from "../../../http/router.js";
import type { SharesService } from "../shares.js";
import type { ShareRecord } from "../shares-repo.js";

export const shareSchema = z
  .object({
    share_id: z.string().openapi({ example: "shr_3q2Jx0b1WcYlW0g1cB9m2A" }),
    url: z
      .string()
      .openapi({ description: "The public page (HTML, no credentials, a preview card when pasted)" }),
    json_url: z.string().openapi({ description: "The same, as JSON" }),
    created_at: z.string().openapi({ description: "ISO 8601 UTC" }),
  })
  .openapi("ProbeShare");

/** Where this deployment is reached: VANTAGE_PUBLIC_URL, else the request's own origin. */
export function originOf(c: Context<AppEnv>, publicUrl: string | undefined): string {
  return (publicUrl ?? new URL(c.req.url).origin).replace(/\/+$/, "");
}

export function toShareView(s: ShareRecord, origin: string) {
  return {
    share_id: s.id,
    url: `${origin}/share/${s.id}`,
    json_url: `${origin}/v1/shares/${s.id}`,
    created_at: s.created_at.toISOString(),
  };
}

const params = z.object({ id: z.string().max(64).openapi({ example: "task_mhb0v3k2x9a1b2c3d4e5f6a7" }) });

const shareStateSchema = z
  .object({
    shareable: z.boolean().openapi({
      description:
        "The caller owns the task, so may publish it (with the `write` scope); false for an anonymous task",
    }),
    share: shareSchema.nullable().openapi({
      description: "The live share link; null while the task has none (always, unless shareable)",
    }),
  })
  .openapi("ProbeShareState");

/** `GET`, `POST` and `DELETE /v1/probe/tasks/{id}/share`: the same contract in both forms (an extension). */
export function registerShareTask(
  app: Router,
  shares: SharesService,
  common: SecuredRoute,
  publicUrl: string | undefined,
): void {
  app.openapi(
    createRoute({
      ...common,
      method: "get",
      path: "/v1/probe/tasks/{id}/share",
      summary: "Whether the caller may share a probe task, and its live share link",
      description:
        "For a task the caller may read: `shareable` is true when the caller owns it (it was created with " +
        "the caller's credentials), and `share` is then its live share link, or null while it has none. An " +
        "anonymous task is readable but nobody's to share (`shareable: false`). Another account's task → " +
        "404, as for reading it. A client offers Share only when `shareable` is true.",
      request: { params },
      responses: {
        200: {
          description: "The caller's view of the task's share",
          ...jsonContent(envelope(shareStateSchema)),
        },
        ...errorResponses(401, 403, 404),
      },
    }),
    async (c) => {
      const state = await shares.current(c.req.valid("param").id, requirePrincipal(c).userId);
      const share = state.share && toShareView(state.share, originOf(c, publicUrl));
      return ok(c, { shareable: state.shareable, share });
    },
  );
  app.openapi(
    createRoute({
      ...common,
      method: "post",
      path: "/v1/probe/tasks/{id}/share",
      summary: "Publish a probe task as a share link",
      description:
        "The owner of a task (created with credentials) publishes it under an unguessable id: a public, " +
        "read-only page (`url`, HTML with a preview card) and JSON (`json_url`) that anyone can open without " +
        "credentials, signatures included (docs/verify.md). Permanent until revoked; publishing a shared " +
        "task again answers its live share. Another account's task, or an anonymous one, → 404.",
      request: { params },
      responses: {
        201: { description: "The share link", ...jsonContent(envelope(shareSchema)) },
        ...errorResponses(401, 403, 404, 409),
      },
    }),
    async (c) => {
      const share = await shares.publish(c.req.valid("param").id, requirePrincipal(c).userId);
      return ok(c, toShareView(share, originOf(c, publicUrl)), 201);
    },
  );
  app.openapi(
    createRoute({
      ...common,
      method: "delete",
      path: "/v1/probe/tasks/{id}/share",
      summary: "Revoke a probe task's share link",
      description:
        "The link's page and JSON answer 404 from now on. No live share, or another account's task → 404.",
      request: { params },
      responses: { 204: { description: "Revoked" }, ...errorResponses(401, 403, 404) },
    }),
    async (c) => {
      await shares.revoke(c.req.valid("param").id, requirePrincipal(c).userId);
      return c.body(null, 204);
    },
  );
}
