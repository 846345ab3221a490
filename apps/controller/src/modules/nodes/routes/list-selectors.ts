import { createRoute, z } from "@hono/zod-openapi";
import type { Authenticator } from "../../../http/authenticator.js";
import { envelope, errorResponses, jsonContent, ok } from "../../../http/envelope.js";
import { type Router, refuseUnknownQuery } from "../../../http/router.js";
import { type ApiForm, optionalAuthSecurity } from "../../../http/security.js";
import type { NodeDirectory } from "../directory.js";
import { selectorsOf } from "../locations.js";

const selectorSchema = z
  .object({
    selector: z.string().openapi({ description: "What to write in `locations`", example: "DE" }),
    kind: z.enum(["continent", "country", "region", "provider", "asn", "tag"]),
    name: z.string().openapi({ example: "Germany" }),
    nodes: z.number().int().openapi({ description: "Known nodes it matches" }),
    online: z.number().int().openapi({ description: "Of them, online now" }),
  })
  .openapi("NodeSelector");

const route = (form: ApiForm) =>
  createRoute({
    method: "get",
    path: "/v1/nodes/selectors",
    tags: ["nodes"],
    summary: "Location selectors the probe nodes answer to, for a probe's `locations`",
    description:
      "Every continent, country, region, provider, network (`AS…`) and tag (an operator's, or a capability) " +
      "of the known nodes, with how many " +
      "nodes each matches and how many of them are online, by kind then selector: `{items}`. A probe's " +
      "`locations` takes these, joined by `+`; countries and continents are also taken by English name " +
      "(`germany`, `north america`), and any country or continent is taken even without nodes (it then " +
      "matches none). Public; credentials sent anyway are checked as on `GET /v1/nodes`. " +
      "docs/node-selection.md",
    security: optionalAuthSecurity(form),
    responses: {
      200: {
        description: "The selectors",
        ...jsonContent(envelope(z.object({ items: z.array(selectorSchema) }))),
      },
      ...errorResponses(400, 401),
    },
  });

/** `GET /v1/nodes/selectors`, from the in-memory directory (a pass over a snapshot, kept with it). */
export function registerListSelectors(
  app: Router,
  directory: NodeDirectory,
  offlineAfterMs: number,
  form: ApiForm,
  authenticator: Authenticator,
): void {
  let kept: { snapshot: readonly unknown[]; at: number; items: unknown[] } | undefined;
  app.openapi(route(form), async (c) => {
    const authorization = c.req.header("authorization");
    const apiKey = authenticator.acceptsApiKeyHeader ? c.req.header("x-api-key") : undefined;
    if (authorization !== undefined || apiKey !== undefined) {
      await authenticator.authenticate({ authorization, apiKey });
    }
    refuseUnknownQuery(c.req.url, new Set());
    const snapshot = directory.peek?.() ?? (await directory.list());
    const now = Date.now();
    // Online counts move with time too: kept for a second at most.
    if (!kept || kept.snapshot !== snapshot || now - kept.at > 1000 || now < kept.at) {
      kept = { snapshot, at: now, items: selectorsOf(snapshot, offlineAfterMs, now) };
    }
    return ok(c, { items: kept.items as z.infer<typeof selectorSchema>[] }, 200);
  });
}
