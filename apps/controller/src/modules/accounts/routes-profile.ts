import { createRoute, type z } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import { requirePrincipal } from "../../http/auth.js";
import type { AppEnv } from "../../http/context.js";
import { envelope, errorResponses, jsonBody, ok } from "../../http/envelope.js";
import type { Router } from "../../http/router.js";
import type { AccountsContext } from "./context.js";
import { profileA, profileB, profilePatchA, profilePatchB, profilePatchResultB } from "./schemas.js";
import { type SecuredRoute, securedRoute } from "./secured-route.js";
import { getUser, updateProfile } from "./service.js";
import { toProfileA, toProfileB } from "./views.js";

/** GET and PATCH /v1/account/profile in the active form's shape. */
export function registerProfileRoutes(
  app: Router,
  ctx: AccountsContext,
  auth: MiddlewareHandler<AppEnv>,
): void {
  const common = securedRoute(ctx, auth);
  if (ctx.form === "a") {
    const routes = profileRoutes(common, {
      profile: profileA,
      patch: profilePatchA,
      patchSummary: "Change profile fields; answers with the whole profile",
      patched: profileA,
      patchedDescription: "Updated profile",
    });
    app.openapi(routes.get, async (c) =>
      ok(c, toProfileA(await getUser(ctx, requirePrincipal(c).userId)), 200),
    );
    app.openapi(routes.patch, async (c) => {
      const user = await updateProfile(ctx, requirePrincipal(c).userId, c.req.valid("json"));
      return ok(c, toProfileA(user), 200);
    });
    return;
  }

  const routes = profileRoutes(common, {
    profile: profileB,
    patch: profilePatchB,
    patchSummary: "Change the display name",
    patched: profilePatchResultB,
    patchedDescription: "Id and display name",
  });
  app.openapi(routes.get, async (c) =>
    ok(c, toProfileB(await getUser(ctx, requirePrincipal(c).userId)), 200),
  );
  app.openapi(routes.patch, async (c) => {
    const user = await updateProfile(ctx, requirePrincipal(c).userId, c.req.valid("json"));
    return ok(c, { id: user.id, display_name: user.display_name }, 200);
  });
}

/** The two contracts, alike in both forms but for the schemas and the PATCH wording. */
function profileRoutes<Profile extends z.ZodType, Patch extends z.ZodType, Patched extends z.ZodType>(
  common: SecuredRoute,
  form: {
    profile: Profile;
    patch: Patch;
    patchSummary: string;
    patched: Patched;
    patchedDescription: string;
  },
) {
  const get = createRoute({
    ...common,
    method: "get",
    path: "/v1/account/profile",
    summary: "The caller's profile",
    responses: {
      200: { description: "Profile", content: { "application/json": { schema: envelope(form.profile) } } },
      ...errorResponses(401, 403),
    },
  });
  const patch = createRoute({
    ...common,
    method: "patch",
    path: "/v1/account/profile",
    summary: form.patchSummary,
    request: jsonBody(form.patch),
    responses: {
      200: {
        description: form.patchedDescription,
        content: { "application/json": { schema: envelope(form.patched) } },
      },
      ...errorResponses(400, 401, 403),
    },
  });
  return { get, patch };
}
