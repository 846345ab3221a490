import { createRoute } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import { requirePrincipal } from "../../http/auth.js";
import type { AppEnv } from "../../http/context.js";
import { envelope, errorResponses, ok } from "../../http/envelope.js";
import type { Router } from "../../http/router.js";
import { authSecurity } from "../../http/security.js";
import type { AccountsContext } from "./context.js";
import { profileA, profileB, profilePatchA, profilePatchB, profilePatchResultB } from "./schemas.js";
import { getUser, updateProfile } from "./service.js";
import { toProfileA, toProfileB } from "./views.js";

/** GET and PATCH /v1/account/profile in the active form's shape. */
export function registerProfileRoutes(
  app: Router,
  ctx: AccountsContext,
  auth: MiddlewareHandler<AppEnv>,
): void {
  const common = { tags: ["account"], security: authSecurity(ctx.form), middleware: auth };
  if (ctx.form === "a") {
    const get = createRoute({
      ...common,
      method: "get",
      path: "/v1/account/profile",
      summary: "The caller's profile",
      responses: {
        200: { description: "Profile", content: { "application/json": { schema: envelope(profileA) } } },
        ...errorResponses(401, 403),
      },
    });
    app.openapi(get, async (c) => ok(c, toProfileA(await getUser(ctx, requirePrincipal(c).userId)), 200));

    const patch = createRoute({
      ...common,
      method: "patch",
      path: "/v1/account/profile",
      summary: "Change profile fields; answers with the whole profile",
      request: { body: { required: true, content: { "application/json": { schema: profilePatchA } } } },
      responses: {
        200: {
          description: "Updated profile",
          content: { "application/json": { schema: envelope(profileA) } },
        },
        ...errorResponses(400, 401, 403),
      },
    });
    app.openapi(patch, async (c) => {
      const user = await updateProfile(ctx, requirePrincipal(c).userId, c.req.valid("json"));
      return ok(c, toProfileA(user), 200);
    });
    return;
  }

  const get = createRoute({
    ...common,
    method: "get",
    path: "/v1/account/profile",
    summary: "The caller's profile",
    responses: {
      200: { description: "Profile", content: { "application/json": { schema: envelope(profileB) } } },
      ...errorResponses(401, 403),
    },
  });
  app.openapi(get, async (c) => ok(c, toProfileB(await getUser(ctx, requirePrincipal(c).userId)), 200));

  const patch = createRoute({
    ...common,
    method: "patch",
    path: "/v1/account/profile",
    summary: "Change the display name",
    request: { body: { required: true, content: { "application/json": { schema: profilePatchB } } } },
    responses: {
      200: {
        description: "Id and display name",
        content: { "application/json": { schema: envelope(profilePatchResultB) } },
      },
      ...errorResponses(400, 401, 403),
    },
  });
  app.openapi(patch, async (c) => {
    const user = await updateProfile(ctx, requirePrincipal(c).userId, c.req.valid("json"));
    return ok(c, { id: user.id, display_name: user.display_name }, 200);
  });
}
