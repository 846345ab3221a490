import { createRoute, type z } from "@hono/zod-openapi";
import { requirePrincipal } from "../../../http/auth.js";
import { envelope, errorResponses, jsonContent, ok } from "../../../http/envelope.js";
import type { SecuredRoute } from "../../../http/route-kit.js";
import type { Router } from "../../../http/router.js";
import type { AccountsContext } from "../context.js";
import { secretPrefix } from "../credential-formats.js";
import { createKeyAs, type KeyRequest } from "../keys.js";
import { createdKeyA, createdKeyB, createKeyBodyA, createKeyBodyB } from "../schemas.js";
import { toKeyA, toKeyB } from "../views.js";

/** Form A default and maximum key lifetime, in days. */
export const DEFAULT_EXPIRES_DAYS = 90;

/**
 * Form A's API keys and personal access tokens: scopes as given (omitted → the creator's), `expires_days`
 * as given or 90 days, each bounded by the credential making the request (`createKeyAs`).
 */
export function formAKeyRequest(
  kind: "api_key" | "pat" | "mcp",
  body: z.infer<typeof createKeyBodyA>,
): KeyRequest {
  return {
    kind,
    name: body.name,
    scopes: body.scopes,
    expiresDays: body.expires_days,
    defaultExpiresDays: DEFAULT_EXPIRES_DAYS,
    secretPrefix: secretPrefix("a", kind),
  };
}

/** What Form A's create routes say about scopes and lifetime; the tokens route says the same. */
export const FORM_A_KEY_TERMS =
  "`scopes` omitted or `[]` grants every scope of the credential making the request (read and write for " +
  "a login session); asking for a scope it lacks → 403 `insufficient_scope`. `expires_days` 1–90, default " +
  "90; a key or token may not outlive the API key or access token that creates it: a longer " +
  "`expires_days` → 400 on `body.expires_days`, an omitted one is shortened to the creator's expiry. A " +
  "login session acts as the account, so its 15 minutes do not limit the keys it creates.";

const createA = (common: SecuredRoute) =>
  createRoute({
    ...common,
    method: "post",
    path: "/v1/account/api-keys",
    summary: "Create an API key (`sk_live_…`); the secret is shown only in this response",
    description: `For server-to-server calls only: never embed a key in browser or mobile code. ${FORM_A_KEY_TERMS}`,
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
    description:
      "Keys carry read and write access and do not expire; delete a key to revoke it. A key created with " +
      "another key gets that key's scopes and expiry (keys issued by an operator may have fewer or one).",
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
      const input = formAKeyRequest("api_key", c.req.valid("json"));
      const { row, secret } = await createKeyAs(ctx, requirePrincipal(c), input);
      return ok(c, { ...toKeyA(row), key: secret }, 201);
    });
  } else {
    app.openapi(createB(common), async (c) => {
      const { row, secret } = await createKeyAs(ctx, requirePrincipal(c), {
        kind: "api_key",
        name: c.req.valid("json").name,
        defaultExpiresDays: null,
        secretPrefix: secretPrefix("b", "api_key"),
      });
      return ok(c, { ...toKeyB(row), key: secret }, 201);
    });
  }
}
