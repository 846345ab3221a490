import { createRoute, type z } from "@hono/zod-openapi";
import { requirePrincipal } from "../../../http/auth.js";
import { envelope, errorResponses, jsonContent, ok } from "../../../http/envelope.js";
import type { Router } from "../../../http/router.js";
import type { AccountsContext } from "../context.js";
import { secretPrefix } from "../credential-formats.js";
import { createdKeyA, createdKeyB, createKeyBodyA, createKeyBodyB } from "../schemas.js";
import { createKey, type NewKeyInput } from "../service.js";
import { toKeyA, toKeyB } from "../views.js";
import type { SecuredRoute } from "./secured-route.js";

/** Form A default and maximum key lifetime, in days. */
export const DEFAULT_EXPIRES_DAYS = 90;

/** Form A's API keys and personal access tokens: scopes as given, `expires_days` defaulting to 90. */
export function formAKeyInput(kind: "api_key" | "pat", body: z.infer<typeof createKeyBodyA>): NewKeyInput {
  return {
    kind,
    name: body.name,
    scopes: body.scopes,
    expiresDays: body.expires_days ?? DEFAULT_EXPIRES_DAYS,
    secretPrefix: secretPrefix("a", kind),
  };
}

const createA = (common: SecuredRoute) =>
  createRoute({
    ...common,
    method: "post",
    path: "/v1/account/api-keys",
    summary: "Create an API key (`sk_live_…`); the secret is shown only in this response",
    description:
      "For server-to-server calls only: never embed a key in browser or mobile code. `scopes` omitted or " +
      "`[]` grants read and write; `expires_days` 1–90, default 90.",
    request: { body: { required: true, ...jsonContent(createKeyBodyA) } },
    responses: {
      201: { description: "Key created", ...jsonContent(envelope(createdKeyA)) },
      ...errorResponses(400, 401, 403, 409),
    },
  });

const createB = (common: SecuredRoute) =>
  createRoute({
    ...common,
    method: "post",
    path: "/v1/account/api-keys",
    summary: "Create an API key (`vantage_live_…`); the secret is shown only in this response",
    description: "Keys carry read and write access and do not expire; delete a key to revoke it.",
    request: { body: { required: true, ...jsonContent(createKeyBodyB) } },
    responses: {
      201: { description: "Key created", ...jsonContent(envelope(createdKeyB)) },
      ...errorResponses(400, 401, 403, 409),
    },
  });

/** `POST /v1/account/api-keys`. */
export function registerCreateKey(app: Router, ctx: AccountsContext, common: SecuredRoute): void {
  if (ctx.form === "a") {
    app.openapi(createA(common), async (c) => {
      const input = formAKeyInput("api_key", c.req.valid("json"));
      const { row, secret } = await createKey(ctx, requirePrincipal(c).userId, input);
      return ok(c, { ...toKeyA(row), key: secret }, 201);
    });
  } else {
    app.openapi(createB(common), async (c) => {
      const { row, secret } = await createKey(ctx, requirePrincipal(c).userId, {
        kind: "api_key",
        name: c.req.valid("json").name,
        expiresDays: null,
        secretPrefix: secretPrefix("b", "api_key"),
      });
      return ok(c, { ...toKeyB(row), key: secret }, 201);
    });
  }
}
