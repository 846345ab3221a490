import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { Authenticator } from "../../../http/authenticator.js";
import { type AppEnv, requestIdOf } from "../../../http/context.js";
import { directRoute } from "../../../http/direct-routes.js";
import { envelope, errorResponses } from "../../../http/envelope.js";
import { validationError } from "../../../http/errors.js";
import { pageFieldsA, pageFieldsB } from "../../../http/page-schemas.js";
import { queryNamesOf, type Router, refuseUnknownQuery } from "../../../http/router.js";
import { type ApiForm, optionalAuthSecurity } from "../../../http/security.js";
import type { NodeFilter, NodeList, NodePage } from "../node-list.js";
import { DataTag, matchesTag } from "./etag.js";
import { acceptsGzip, PREPARED_MIN_BYTES, PreparedEnvelope } from "./prepared-envelope.js";
import { WholeList } from "./whole-list.js";

export const nodeSchema = z
  .object({
    id: z.string().openapi({ example: "fra1" }),
    name: z.string().openapi({ example: "Frankfurt 1" }),
    country: z.string().length(2).openapi({ example: "DE" }),
    region: z.string().openapi({ example: "eu-central" }),
    provider: z.string().openapi({ example: "hetzner" }),
    status: z.enum(["online", "offline"]).openapi({
      description:
        "`online` while heartbeats are fresh (VANTAGE_NODE_OFFLINE_AFTER_MS), the agent is not draining, and " +
        "no probe has found it unreachable (no agent serving its jobs) since its last heartbeat",
    }),
    last_seen: z.string().openapi({ description: "ISO 8601 UTC time of the last heartbeat" }),
    version: z.string().openapi({ description: "Agent software version" }),
    capabilities: z.array(z.string()).openapi({ description: "e.g. ipv4, ipv6, icmp" }),
    public_key: z
      .string()
      .nullable()
      .openapi({
        description:
          "The Ed25519 key the node signs its results with, as a user nkey (`U…`); null when it signs none. " +
          "Check a shared result's signature against it offline: docs/verify.md, `vantage verify`",
        example: "UCK5N7N66OBOINFXAYC2ACJQYFSOD4VYNU6APEJTAVFZB2SVHLKGEW7L",
      }),
  })
  .openapi("Node");

/** Default page size once a client pages (`page` or the size field given): the largest allowed. */
const PAGE_SIZE = 100;

const filterFields = {
  status: z.enum(["online", "offline"]).optional().openapi({ description: "Only nodes with this status" }),
  country: z
    .string()
    .regex(/^[A-Za-z]{2}$/, "a two-letter country code")
    .optional()
    .openapi({ description: "Only nodes in this country (two letters, any case)", example: "DE" }),
  region: z.string().min(1).max(64).optional().openapi({ description: "Only nodes in this region" }),
  provider: z.string().min(1).max(64).optional().openapi({ description: "Only nodes of this provider" }),
};

export const nodeListQueryA = z.object({ ...pageFieldsA(PAGE_SIZE), ...filterFields });
export const nodeListQueryB = z.object({ ...pageFieldsB(PAGE_SIZE), ...filterFields });

const pageNote = (size: string) =>
  `Every node that has ever sent a heartbeat, ordered by id: \`{items}\`. With a filter, only the matching ` +
  `nodes. With \`page\` or \`${size}\` (1–100, default ${PAGE_SIZE}) one page of them, with \`total\`, ` +
  `\`page\` and \`${size}\`; a page beyond the last has no items and the same total.`;

const listResponse = (size: "limit" | "per_page") =>
  z.object({
    items: z.array(nodeSchema),
    total: z.number().int().optional().openapi({ description: "Matching nodes (paged answers only)" }),
    page: z.number().int().optional().openapi({ description: "Paged answers only" }),
    [size]: z.number().int().optional().openapi({ description: "Paged answers only" }),
  });

const listNodesRoute = (form: ApiForm) => {
  const size = form === "a" ? "limit" : "per_page";
  return createRoute({
    method: "get",
    path: "/v1/nodes",
    tags: ["nodes"],
    summary: "List probe nodes with their region, provider and online status",
    description: `${pageNote(size)} ${credentialNote}`,
    security: optionalAuthSecurity(form),
    request: { query: form === "a" ? nodeListQueryA : nodeListQueryB },
    responses: {
      200: {
        description: "The nodes (or one page of them)",
        headers: {
          ETag: {
            schema: { type: "string" },
            description: "Weak tag of the data; send it back in `If-None-Match` to get a 304 while unchanged",
          },
        },
        content: { "application/json": { schema: envelope(listResponse(size)) } },
      },
      304: { description: "Not modified: the `If-None-Match` tag is the current data's" },
      ...errorResponses(400, 401),
    },
  });
};

const credentialNote =
  "Public: no credentials needed. Credentials sent anyway are checked as on every other public route: a " +
  "malformed, unknown, expired or revoked one is 401 `unauthorized`, an MCP token 401 " +
  "`mcp_token_not_accepted`.";

/** The query's filter and page, or a 400 `validation_error` naming the field (`query.per_page`). */
export function parseNodeListQuery(
  form: ApiForm,
  raw: Record<string, string>,
): { filter: NodeFilter; page: NodePage | undefined } {
  const sizeField = form === "a" ? "limit" : "per_page";
  const parsed = (form === "a" ? nodeListQueryA : nodeListQueryB).safeParse(raw);
  if (!parsed.success) throw validationError(parsed.error, "query");
  const q = parsed.data;
  const size = "limit" in q ? q.limit : q.per_page;
  return {
    filter: {
      status: q.status,
      country: q.country?.toUpperCase(),
      region: q.region,
      provider: q.provider,
    },
    page: "page" in raw || sizeField in raw ? { page: q.page, size, sizeField } : undefined,
  };
}

const jsonType = { "Content-Type": "application/json" } as const;

/** The envelope of a small answer (under PREPARED_MIN_BYTES), as `ok()` would build it. */
const smallEnvelope = (data: string, requestId: string) =>
  `{"data":${data},"request_id":${JSON.stringify(requestId)}}`;

/**
 * The whole list's data when the directory has it at hand (once loaded) and small enough to answer as text:
 * made without a promise, by the router's handler and by the direct route alike; `undefined` otherwise.
 */
function smallWholeList(list: NodeList): string | undefined {
  const data = list.peekJson();
  return data !== undefined && data.length < PREPARED_MIN_BYTES ? data : undefined;
}
const largeJsonType = { "Content-Type": "application/json", Vary: "Accept-Encoding" } as const;
const gzipJsonType = { ...largeJsonType, "Content-Encoding": "gzip" } as const;

/**
 * `GET /v1/nodes`: the prepared JSON of the data object (see `NodeList`) inside the envelope, as `ok()`
 * would build it; a large list as prepared bytes, gzip for clients that accept it (see `PreparedEnvelope`).
 * The handler sends prepared text, so the route is documented from its definition and served by a plain
 * handler; a request without a query string (the common one) parses nothing, and once the directory has the
 * list at hand it is answered without a promise, as `/healthz` is.
 */
export function registerListNodes(
  app: Router,
  list: NodeList,
  form: ApiForm,
  authenticator: Authenticator,
): void {
  const route = listNodesRoute(form);
  const names = queryNamesOf(route.request.query);
  const takesApiKeyHeader = authenticator.acceptsApiKeyHeader;
  app.openAPIRegistry.registerPath(route);
  // The whole list, and the last other large answer (a filter that matches most nodes), each with the
  // tag of its data: an unchanged list costs a client a 304, not the list.
  const whole = new WholeList(list);
  const directTag = new DataTag();
  const other = { body: new PreparedEnvelope(), tag: new DataTag() };
  const answer = async (c: Context<AppEnv>, data: string, ETag: string, prepared: PreparedEnvelope) => {
    const requestId = requestIdOf(c);
    const small = data.length < PREPARED_MIN_BYTES;
    if (matchesTag(c.req.header("if-none-match"), ETag)) {
      return c.body(null, 304, small ? { ETag } : { ETag, Vary: largeJsonType.Vary });
    }
    if (small) return c.body(smallEnvelope(data, requestId), 200, { ...jsonType, ETag });
    const gz = acceptsGzip(c.req.header("accept-encoding"));
    const { body, gzip } = await prepared.body(data, requestId, gz);
    // A large answer depends on Accept-Encoding (a small one never does).
    return c.body(body, 200, { ...(gzip ? gzipJsonType : largeJsonType), ETag });
  };
  app.get(route.path, async (c) => {
    const authorization = c.req.header("authorization");
    const apiKey = takesApiKeyHeader ? c.req.header("x-api-key") : undefined;
    // Credentials are optional here, but ones sent must be good ones (401 otherwise), as on the lookups.
    if (authorization !== undefined || apiKey !== undefined) {
      await authenticator.authenticate({ authorization, apiKey });
    }
    refuseUnknownQuery(c.req.url, names);
    if (c.req.url.indexOf("?") === -1) {
      // The common request: the whole list, a large one from a body prepared ahead (see WholeList).
      const w = await whole.current();
      return answer(c, w.data, w.tag, w.body);
    }
    const { filter, page } = parseNodeListQuery(form, c.req.query());
    const data = await list.json(filter, page);
    return answer(c, data, other.tag.of(data), other.body);
  });
  // The same small answer before the router, under Node's server (dashboards poll it); a large list
  // (gzip, prepared bytes), a list not yet in memory and a request with credentials go to the router.
  directRoute(app, route.path, (requestId, headers) => {
    if (headers.authorization !== undefined) return undefined;
    if (takesApiKeyHeader && headers["x-api-key"] !== undefined) return undefined;
    // A conditional request goes to the router, which answers 304 when the tag is current.
    if (headers["if-none-match"] !== undefined) return undefined;
    const data = smallWholeList(list);
    if (data === undefined) return undefined;
    return {
      status: 200,
      type: jsonType["Content-Type"],
      body: smallEnvelope(data, requestId),
      headers: { ETag: directTag.of(data) },
    };
  });
}
