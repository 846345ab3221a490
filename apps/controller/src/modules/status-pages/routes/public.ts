import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { acceptsGzip } from "../../../http/accept-encoding.js";
import { type AppEnv, clientIpOf, requestIdOf } from "../../../http/context.js";
import { envelope, errorResponses, jsonBody, jsonContent, ok } from "../../../http/envelope.js";
import { notFound } from "../../../http/errors.js";
import type { Router } from "../../../http/router.js";
import { htmlPolicy } from "../../../http/security-headers.js";
import type { RenderCache, Rendered } from "../cache.js";
import { messagePage, renderAtom, renderHtml, statusBadge, uptimeBadge } from "../render.js";
import { emailSubscribeBody, LIMITS, publicView, slugParam } from "../schemas.js";
import type { StatusPagesService } from "../service.js";
import type { Snapshot } from "../snapshot.js";
import { toPublic } from "../views.js";

const tags = ["status pages"];
/**
 * The HTML page's policy: no script at all, inline styles, images from this server, `data:` and https (the
 * page's logo may be on the owner's site), nothing framed, no forms.
 */
const PAGE_POLICY = htmlPolicy([])
  .replace("script-src 'self'", "script-src 'none'")
  .replace("img-src 'self' data:", "img-src 'self' data: https:");
/** Browsers and proxies may keep a rendering as long as this controller does. */
const CACHE_CONTROL = "public, max-age=10";

export interface PublicKind {
  type: string;
  render(s: Snapshot, base: string, pageUrl: string): string;
}

/** The public renderings, by the path after `/status/{slug}` (and after `/` on a custom domain). */
export const publicKinds: Record<string, PublicKind> = {
  "": { type: "text/html; charset=utf-8", render: (s, base) => renderHtml(s, { base }) },
  "/status.json": { type: "application/json; charset=utf-8", render: (s) => JSON.stringify(toPublic(s)) },
  "/feed.atom": { type: "application/atom+xml; charset=utf-8", render: (s, _b, url) => renderAtom(s, url) },
  "/badge/status.svg": { type: "image/svg+xml", render: (s) => statusBadge(s) },
  "/badge/uptime.svg": { type: "image/svg+xml", render: (s) => uptimeBadge(s) },
};

/**
 * Answers one public rendering of a page from the cache: 304 for a matching `If-None-Match`, 404 for an
 * unknown slug. `base` is where the page's own links start (`/status/{slug}`, or empty on a custom domain).
 */
export async function answerPublic(
  c: Context<AppEnv>,
  cache: RenderCache,
  slug: string,
  suffix: string,
  base: string,
  origin: string,
): Promise<Response> {
  const kind = publicKinds[suffix];
  if (!kind) throw notFound("status page");
  const out: Rendered | undefined = await cache.get(slug, suffix, (s) =>
    kind.render(s, base, `${origin}${base}`),
  );
  if (!out) throw notFound("status page");
  c.header("Cache-Control", CACHE_CONTROL);
  if (suffix === "/status.json") {
    c.header("ETag", out.etag);
    if (c.req.header("if-none-match") === out.etag) return c.body(null, 304);
    c.header("Content-Type", kind.type);
    // The envelope around the cached data: only the request id differs between answers.
    return c.body(`{"data":${out.body},"request_id":${JSON.stringify(requestIdOf(c))}}`);
  }
  // The prepared bytes, gzip'd for a client that takes it: the same content, so either tag is a match.
  const zipped = out.gzip && acceptsGzip(c.req.header("accept-encoding")) ? await out.gzip : undefined;
  if (out.gzip) c.header("Vary", "Accept-Encoding");
  c.header("ETag", zipped ? out.gzipEtag : out.etag);
  const match = c.req.header("if-none-match");
  if (match !== undefined && (match === out.etag || match === out.gzipEtag)) return c.body(null, 304);
  c.header("Content-Type", kind.type);
  if (suffix === "") c.header("Content-Security-Policy", PAGE_POLICY);
  if (!zipped) return c.body(out.bytes);
  c.header("Content-Encoding", "gzip");
  return c.body(zipped);
}

const text = (type: string, description: string) => ({
  description,
  content: { [type]: { schema: z.string() } },
});

/** The public, unauthenticated routes of status pages. */
export function registerPublicRoutes(
  app: Router,
  svc: StatusPagesService,
  cache: RenderCache,
  origin: string,
) {
  const page = (suffix: string, summary: string, ok200: Record<string, unknown>) =>
    app.openapi(
      createRoute({
        tags,
        method: "get",
        path: `/status/{slug}${suffix}`,
        summary,
        description:
          "Public, no credentials. Served from memory for up to 10 s after a change elsewhere (at once after a " +
          "change through this controller); `ETag` and `If-None-Match` (304) are honoured. Unknown slug → 404.",
        request: { params: slugParam },
        responses: { 200: ok200, 304: { description: "Not modified" }, ...errorResponses(404) },
      }),
      (async (c: Context<AppEnv>) => {
        const slug = c.req.param("slug") ?? "";
        return answerPublic(c, cache, slug, suffix, `/status/${slug}`, origin);
      }) as never,
    );
  page("", "A status page as HTML (works without JavaScript)", text("text/html", "The page"));
  page("/status.json", "A status page as JSON", {
    description: "The page's state: components with 90 daily bars, incidents, maintenance",
    ...jsonContent(envelope(publicView)),
  });
  page("/feed.atom", "A status page's incidents as an Atom feed", text("application/atom+xml", "The feed"));
  page("/badge/status.svg", "A status badge (SVG)", text("image/svg+xml", "The badge"));
  page("/badge/uptime.svg", "A 90-day uptime badge (SVG)", text("image/svg+xml", "The badge"));

  app.openapi(
    createRoute({
      tags,
      method: "post",
      path: "/status/{slug}/subscribe",
      summary: "Subscribe to a status page's incidents by email (double opt-in)",
      description:
        "Mails a confirmation link; nothing more is sent until it is followed. The answer is the same for a " +
        "new, pending or confirmed address. Unknown slug → 404. At most " +
        `${LIMITS.subscribeMailsPerClientHour} requests per client (IPv6: per /64) and ` +
        `${LIMITS.subscribeMailsPerAddressHour} per mailbox (\`+tags\` folded) per hour over every page; ` +
        "beyond → 429 with Retry-After.",
      request: { params: slugParam, ...jsonBody(emailSubscribeBody) },
      responses: {
        202: {
          description: "Confirmation mailed",
          ...jsonContent(envelope(z.object({ status: z.literal("confirmation_sent") }))),
        },
        ...errorResponses(400, 404, 409, 429),
      },
    }),
    async (c) => {
      await svc.subscribeEmail(c.req.valid("param").slug, c.req.valid("json").email, clientIpOf(c));
      return ok(c, { status: "confirmation_sent" as const }, 202);
    },
  );
  const tokenQuery = z.object({ token: z.string().max(200).optional(), id: z.string().max(64).optional() });
  app.openapi(
    createRoute({
      tags,
      method: "get",
      path: "/status/{slug}/confirm",
      summary: "Confirm an email subscription (the mailed link)",
      request: { params: slugParam, query: tokenQuery },
      responses: {
        200: text("text/html", "Confirmed, or a page saying the link is not valid"),
        ...errorResponses(400, 404),
      },
    }),
    (async (c: Context<AppEnv>) => {
      const slug = c.req.param("slug") ?? "";
      const done = await svc.confirmEmail(slug, c.req.query("token") ?? "");
      return c.html(
        done
          ? messagePage("Subscribed", "You will be told of incidents on this status page.")
          : messagePage("Link not valid", "This confirmation link is unknown or was used to unsubscribe."),
      );
    }) as never,
  );
  app.openapi(
    createRoute({
      tags,
      method: "get",
      path: "/status/{slug}/unsubscribe",
      summary: "Unsubscribe from a status page (the link in its mail)",
      request: { params: slugParam, query: tokenQuery },
      responses: {
        200: text("text/html", "Unsubscribed, or a page saying the link is not valid"),
        ...errorResponses(400, 404),
      },
    }),
    (async (c: Context<AppEnv>) => {
      const slug = c.req.param("slug") ?? "";
      const token = c.req.query("token");
      const id = c.req.query("id");
      const done = await svc.unsubscribe(slug, token ? { token } : id ? { id } : {});
      return c.html(
        done
          ? messagePage("Unsubscribed", "No more mail will come from this status page.")
          : messagePage("Link not valid", "This subscription is unknown or already ended."),
      );
    }) as never,
  );
}
