import { createRoute, type z } from "@hono/zod-openapi";
import { requirePrincipal } from "../../../http/auth.js";
import { envelope, errorResponses, jsonContent, ok } from "../../../http/envelope.js";
import type { SecuredRoute } from "../../../http/route-kit.js";
import type { Router } from "../../../http/router.js";
import type { AccountsContext } from "../context.js";
import { profileA, profileB } from "../schemas.js";
import { getUser } from "../service.js";
import { toProfileA, toProfileB } from "../views.js";

/** The same contract in both forms but for the profile's schema. */
const getRoute = <S extends z.ZodType>(common: SecuredRoute, profile: S) =>
  createRoute({
    ...common,
    method: "get",
    path: "/v1/account/profile",
    summary: "The caller's profile",
    responses: {
      200: { description: "Profile", ...jsonContent(envelope(profile)) },
      ...errorResponses(401, 403),
    },
  });

/** `GET /v1/account/profile` in the active form's shape. */
export function registerGetProfile(app: Router, ctx: AccountsContext, common: SecuredRoute): void {
  if (ctx.form === "a") {
    app.openapi(getRoute(common, profileA), async (c) =>
      ok(c, toProfileA(await getUser(ctx, requirePrincipal(c).userId)), 200),
    );
  } else {
    app.openapi(getRoute(common, profileB), async (c) =>
      ok(c, toProfileB(await getUser(ctx, requirePrincipal(c).userId)), 200),
    );
  }
}
