import { createRoute, z } from "@hono/zod-openapi";
import type { Context, MiddlewareHandler } from "hono";
import type { AppEnv } from "./context.js";
import { envelope, errorResponses, jsonContent, ok } from "./envelope.js";
import { listA, listB, pageFieldsA, pageFieldsB } from "./page-schemas.js";
import type { Router } from "./router.js";
import { type ApiForm, authSecurity, optionalAuthSecurity } from "./security.js";

/**
 * What every route of a module that needs credentials shares: its tag in the document, the form's security
 * and the auth check, spread into `createRoute`. It also carries the form it was made for (`form`), so every
 * route registers with one signature, `register<Op>(app, service, common)`. `form` is not enumerable: a
 * spread leaves it out, and it never reaches the route's fields or the OpenAPI document.
 */
export interface SecuredRoute {
  tags: string[];
  security: Record<string, string[]>[];
  middleware: MiddlewareHandler<AppEnv>;
  readonly form: ApiForm;
}

export function securedRoute(tag: string, form: ApiForm, auth: MiddlewareHandler<AppEnv>): SecuredRoute {
  return withForm({ tags: [tag], security: authSecurity(form), middleware: auth }, form);
}

/**
 * The same for a route anyone may call, credentials optional (probes, lookups): `auth` reads them when
 * given, and the document lists "none" beside the form's schemes.
 */
export function openRoute(tag: string, form: ApiForm, auth: MiddlewareHandler<AppEnv>): SecuredRoute {
  return withForm({ tags: [tag], security: optionalAuthSecurity(form), middleware: auth }, form);
}

function withForm(fields: Omit<SecuredRoute, "form">, form: ApiForm): SecuredRoute {
  return Object.defineProperty(fields, "form", { value: form, enumerable: false }) as SecuredRoute;
}

/** A list's page in the service's terms, whatever the form calls its size (`limit` in A, `per_page` in B). */
export interface PageQuery {
  page: number;
  limit: number;
}

export interface PagedList<F extends z.ZodRawShape, T> {
  /** The route's tag, security and auth, and the active form (`common.form`). */
  common: SecuredRoute;
  path: string;
  summary: string;
  description: string;
  /** The 200 answer's description, e.g. "A page of events". */
  answer: string;
  /** One item as the active form shows it. */
  item: z.ZodType;
  /** The page size when the query names none. */
  pageSize: number;
  /** Query fields besides the page's (filters), the same in both forms. */
  filters?: F;
  /** Error statuses the route documents; default 400, 401, 403. */
  errors?: readonly number[];
  /** One page of items and how many match in all. */
  list(
    c: Context<AppEnv>,
    query: PageQuery & z.infer<z.ZodObject<F>>,
  ): Promise<{ items: readonly T[]; total: number }>;
  /** An item → its answer in the active form. */
  view(item: T): unknown;
}

/**
 * Registers a paged list in the active form: Form A pages with `?page&limit` and answers
 * `{items, total, page, limit}`, Form B with `?page&per_page` and `{items, total, page, per_page}`
 * (http/page-schemas.ts). The handler sees one `PageQuery` either way.
 */
export function registerPagedList<F extends z.ZodRawShape, T>(app: Router, spec: PagedList<F, T>): void {
  const formA = spec.common.form === "a";
  const query = z.object({
    ...(formA ? pageFieldsA(spec.pageSize) : pageFieldsB(spec.pageSize)),
    ...spec.filters,
  });
  const route = createRoute({
    ...spec.common,
    method: "get",
    path: spec.path,
    summary: spec.summary,
    description: spec.description,
    request: { query },
    responses: {
      200: {
        description: spec.answer,
        ...jsonContent(envelope(formA ? listA(spec.item) : listB(spec.item))),
      },
      ...errorResponses(...(spec.errors ?? [400, 401, 403])),
    },
  });
  app.openapi(route, async (c) => {
    const { page, limit, per_page, ...filters } = c.req.valid("query") as {
      page: number;
      limit?: number;
      per_page?: number;
    } & Record<string, unknown>;
    const size = (formA ? limit : per_page) ?? spec.pageSize;
    const { items, total } = await spec.list(c, { ...filters, page, limit: size } as PageQuery &
      z.infer<z.ZodObject<F>>);
    const data = {
      items: items.map((i) => spec.view(i)),
      total,
      page,
      ...(formA ? { limit: size } : { per_page: size }),
    };
    // The answer's type is the list schema of the form chosen at run time: checked by the contract tests.
    return ok(c, data, 200) as never;
  });
}
