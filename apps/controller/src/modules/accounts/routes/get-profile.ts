import { createRoute } from "@hono/zod-openapi";
import { requirePrincipal } from "../../../http/auth.js";
import { envelope, errorResponses, jsonContent, ok } from "../../../http/envelope.js";
import type { Router } from "../../../http/router.js";
import type { AccountsContext } from "../context.js";
import { profileA, profileB } from "../schemas.js";
import { getUser } from "../service.js";
import { toProfileA, toProfileB } from "../views.js";
import type { SecuredRoute } from "./secured-route.js";

const getA = (common: SecuredRoute) =>
  createRoute({
    ...common,
    method: "get",
    path: "/v1/account/profile",
    summary: "The caller's profile",
    responses: {
      200: { description: "Profile", ...jsonContent(envelope(profileA)) },
      ...errorResponses(401, 403),
    },
  });

const getB = (common: SecuredRoute) =>
  createRoute({
    ...common,
    method: "get",
    path: "/v1/account/profile",
    summary: "The caller's profile",
    responses: {
      200: { description: "Profile", ...jsonContent(envelope(profileB)) },
      ...errorResponses(401, 403),
    },
  });

/** `GET /v1/account/profile` in the active form's shape. */
export function registerGetProfile(app: Router, ctx: AccountsContext, common: SecuredRoute): void {
  if (ctx.form === "a") {
    app.openapi(getA(common), async (c) =>
      ok(c, toProfileA(await getUser(ctx, requirePrincipal(c).userId)), 200),
    );
  } else {
    app.openapi(getB(common), async (c) =>
      ok(c, toProfileB(await getUser(ctx, requirePrincipal(c).userId)), 200),
    );
  }
}
