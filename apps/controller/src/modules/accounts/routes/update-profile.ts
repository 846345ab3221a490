import { createRoute } from "@hono/zod-openapi";
import { requirePrincipal } from "../../../http/auth.js";
import { envelope, errorResponses, jsonBody, jsonContent, ok } from "../../../http/envelope.js";
import type { SecuredRoute } from "../../../http/route-kit.js";
import type { Router } from "../../../http/router.js";
import type { AccountsContext } from "../context.js";
import { profileA, profilePatchA, profilePatchB, profilePatchResultB } from "../schemas.js";
import { updateProfile } from "../service.js";
import { toProfileA } from "../views.js";

const patchA = (common: SecuredRoute) =>
  createRoute({
    ...common,
    method: "patch",
    path: "/v1/account/profile",
    summary: "Change profile fields; answers with the whole profile",
    request: jsonBody(profilePatchA),
    responses: {
      200: { description: "Updated profile", ...jsonContent(envelope(profileA)) },
      ...errorResponses(400, 401, 403),
    },
  });

const patchB = (common: SecuredRoute) =>
  createRoute({
    ...common,
    method: "patch",
    path: "/v1/account/profile",
    summary: "Change the display name",
    request: jsonBody(profilePatchB),
    responses: {
      200: { description: "Id and display name", ...jsonContent(envelope(profilePatchResultB)) },
      ...errorResponses(400, 401, 403),
    },
  });

/** `PATCH /v1/account/profile`: Form A changes any profile field, Form B the display name. */
export function registerUpdateProfile(app: Router, ctx: AccountsContext, common: SecuredRoute): void {
  if (ctx.form === "a") {
    app.openapi(patchA(common), async (c) => {
      const user = await updateProfile(ctx, requirePrincipal(c).userId, c.req.valid("json"));
      return ok(c, toProfileA(user), 200);
    });
  } else {
    app.openapi(patchB(common), async (c) => {
      const user = await updateProfile(ctx, requirePrincipal(c).userId, c.req.valid("json"));
      return ok(c, { id: user.id, display_name: user.display_name }, 200);
    });
  }
}
