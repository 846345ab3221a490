import { createRoute, z } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import { requirePrincipal } from "../../http/auth.js";
import type { AppEnv } from "../../http/context.js";
import { envelope, errorResponses, jsonContent, ok } from "../../http/envelope.js";
import type { Router } from "../../http/router.js";
import type { AccountsContext } from "./context.js";
import { secretPrefix } from "./credential-formats.js";
import {
  createdKeyA,
  createdKeyB,
  createdPat,
  createKeyBodyA,
  createKeyBodyB,
  createPatBody,
  idParam,
  keyListA,
  keyListB,
  pageQuery,
  patList,
} from "./schemas.js";
import { type SecuredRoute, securedRoute } from "./secured-route.js";
import { createKey, listKeys, type NewKeyInput, revokeKey } from "./service.js";
import { toKeyA, toKeyB, toPat } from "./views.js";

/** Form A default and maximum key lifetime, in days. */
export const DEFAULT_EXPIRES_DAYS = 90;
/** Form B has no paging parameters: its list answers with up to this many keys (the per-account cap). */
const FORM_B_LIST_LIMIT = 100;

/** API keys (both forms), and personal access tokens (Form A only). */
export function registerKeyRoutes(app: Router, ctx: AccountsContext, auth: MiddlewareHandler<AppEnv>): void {
  const common = securedRoute(ctx, auth);

  if (ctx.form === "a") {
    const keys = formACreateAndList(common, {
      path: "/v1/account/api-keys",
      createSummary: "Create an API key (`sk_live_…`); the secret is shown only in this response",
      createDescription:
        "For server-to-server calls only: never embed a key in browser or mobile code. `scopes` omitted or " +
        "`[]` grants read and write; `expires_days` 1–90, default 90.",
      createBody: createKeyBodyA,
      created: createdKeyA,
      createdDescription: "Key created",
      listSummary: "List the caller's active API keys (never the secrets)",
      list: keyListA,
      listDescription: "A page of keys, newest first",
    });
    app.openapi(keys.create, async (c) => {
      const input = formAKeyInput("api_key", c.req.valid("json"));
      const { row, secret } = await createKey(ctx, requirePrincipal(c).userId, input);
      return ok(c, { ...toKeyA(row), key: secret }, 201);
    });
    app.openapi(keys.list, async (c) => {
      const page = c.req.valid("query");
      const { items, total } = await listKeys(ctx, requirePrincipal(c).userId, "api_key", page);
      return ok(c, { api_keys: items.map(toKeyA), total, limit: page.limit, offset: page.offset }, 200);
    });
    registerDelete(app, ctx, common, "api_key", "/v1/account/api-keys/{id}", "Revoke an API key");

    const tokens = formACreateAndList(common, {
      path: "/v1/account/tokens",
      createSummary: "Create a personal access token (`vantage_pat_…`); shown only in this response",
      createDescription:
        "A personal access token acts as the user (CLI, scripts); it has scopes and expiry like an API key " +
        "(`scopes` omitted or `[]` → read and write; `expires_days` 1–90, default 90).",
      createBody: createPatBody,
      created: createdPat,
      createdDescription: "Token created",
      listSummary: "List the caller's active personal access tokens",
      list: patList,
      listDescription: "A page of tokens, newest first",
    });
    app.openapi(tokens.create, async (c) => {
      const input = formAKeyInput("pat", c.req.valid("json"));
      const { row, secret } = await createKey(ctx, requirePrincipal(c).userId, input);
      return ok(c, { ...toPat(row), token: secret }, 201);
    });
    app.openapi(tokens.list, async (c) => {
      const page = c.req.valid("query");
      const { items, total } = await listKeys(ctx, requirePrincipal(c).userId, "pat", page);
      return ok(c, { tokens: items.map(toPat), total, limit: page.limit, offset: page.offset }, 200);
    });
    registerDelete(app, ctx, common, "pat", "/v1/account/tokens/{id}", "Revoke a personal access token");
    return;
  }

  const create = createRoute({
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
  app.openapi(create, async (c) => {
    const { row, secret } = await createKey(ctx, requirePrincipal(c).userId, {
      kind: "api_key",
      name: c.req.valid("json").name,
      expiresDays: null,
      secretPrefix: secretPrefix("b", "api_key"),
    });
    return ok(c, { ...toKeyB(row), key: secret }, 201);
  });

  const list = createRoute({
    ...common,
    method: "get",
    path: "/v1/account/api-keys",
    summary: "List the caller's active API keys (never the secrets)",
    responses: {
      200: { description: "Keys, newest first", ...jsonContent(envelope(keyListB)) },
      ...errorResponses(401, 403),
    },
  });
  app.openapi(list, async (c) => {
    const { items } = await listKeys(ctx, requirePrincipal(c).userId, "api_key", {
      limit: FORM_B_LIST_LIMIT,
      offset: 0,
    });
    return ok(c, { items: items.map(toKeyB) }, 200);
  });

  registerDelete(app, ctx, common, "api_key", "/v1/account/api-keys/{id}", "Revoke an API key");
}

/** Form A's API keys and personal access tokens: scopes as given, `expires_days` defaulting to 90. */
function formAKeyInput(kind: "api_key" | "pat", body: z.infer<typeof createKeyBodyA>): NewKeyInput {
  return {
    kind,
    name: body.name,
    scopes: body.scopes,
    expiresDays: body.expires_days ?? DEFAULT_EXPIRES_DAYS,
    secretPrefix: secretPrefix("a", kind),
  };
}

/** Form A's create and list contracts, alike for API keys and personal access tokens but for the wording. */
function formACreateAndList<Body extends z.ZodType, Created extends z.ZodType, List extends z.ZodType>(
  common: SecuredRoute,
  kind: {
    path: string;
    createSummary: string;
    createDescription: string;
    createBody: Body;
    created: Created;
    createdDescription: string;
    listSummary: string;
    list: List;
    listDescription: string;
  },
) {
  const create = createRoute({
    ...common,
    method: "post",
    path: kind.path,
    summary: kind.createSummary,
    description: kind.createDescription,
    request: { body: { required: true, ...jsonContent(kind.createBody) } },
    responses: {
      201: { description: kind.createdDescription, ...jsonContent(envelope(kind.created)) },
      ...errorResponses(400, 401, 403, 409),
    },
  });
  const list = createRoute({
    ...common,
    method: "get",
    path: kind.path,
    summary: kind.listSummary,
    request: { query: pageQuery },
    responses: {
      200: { description: kind.listDescription, ...jsonContent(envelope(kind.list)) },
      ...errorResponses(400, 401, 403),
    },
  });
  return { create, list };
}

function registerDelete(
  app: Router,
  ctx: AccountsContext,
  common: SecuredRoute,
  kind: "api_key" | "pat",
  path: string,
  summary: string,
): void {
  const route = createRoute({
    ...common,
    method: "delete",
    path,
    summary,
    description:
      "Takes effect at once on this controller and within 10 s on others. Another account's id → 404.",
    request: { params: idParam },
    responses: {
      200: { description: "Revoked", ...jsonContent(envelope(z.null())) },
      ...errorResponses(401, 403, 404),
    },
  });
  app.openapi(route, async (c) => {
    await revokeKey(ctx, requirePrincipal(c).userId, kind, c.req.valid("param").id);
    return ok(c, null, 200);
  });
}
