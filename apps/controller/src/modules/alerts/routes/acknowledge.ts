import { createRoute, z } from "@hono/zod-openapi";
import type { Context, MiddlewareHandler } from "hono";
import type { Kysely } from "kysely";
import type { Database } from "../../../db/schema.js";
import { requirePrincipal } from "../../../http/auth.js";
import type { AppEnv } from "../../../http/context.js";
import { envelope, errorResponses, jsonContent, ok } from "../../../http/envelope.js";
import { ApiError, notFound } from "../../../http/errors.js";
import { securedRoute } from "../../../http/route-kit.js";
import type { Router } from "../../../http/router.js";
import type { ApiForm } from "../../../http/security.js";
import type { SecretBox } from "../../../lib/secret-box.js";
import { acknowledgeEvent, readAckToken } from "../acknowledge.js";
import { eventIdParam, eventSchema } from "../schemas.js";
import type { AlertsService } from "../types.js";
import { toEventView } from "../views.js";

const tokenParam = z.object({
  token: z
    .string()
    .min(1)
    .max(300)
    .openapi({ param: { name: "token", in: "path" }, description: "The token of the link in the message" }),
});

const ackAnswer = z
  .object({ event_id: z.string(), acknowledged_at: z.string().openapi({ format: "date-time" }) })
  .openapi("AlertAcknowledged");

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);

const page = (title: string, body: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">` +
  `<meta name="robots" content="noindex"><title>${escapeHtml(title)}</title></head><body style="font-family:sans-serif;max-width:32rem;margin:3rem auto">` +
  `<h1>${escapeHtml(title)}</h1>${body}</body></html>`;

const wantsHtml = (c: Context<AppEnv>) => /text\/html/.test(c.req.header("accept") ?? "");

/**
 * Acknowledging a down alert (a Vantage extension, the same in both forms): by its owner through the API,
 * or signed-out through the signed link every down and escalation message carries. The link's GET only
 * shows a button (link previewers and mail scanners fetch links); its POST acknowledges, once.
 */
export function registerAckRoutes(
  app: Router,
  api: AlertsService,
  auth: MiddlewareHandler<AppEnv>,
  form: ApiForm,
  deps: { db: Kysely<Database>; box: SecretBox | undefined },
): void {
  const common = securedRoute("alerts", form, auth);
  app.openapi(
    createRoute({
      ...common,
      method: "post",
      path: "/v1/alert-events/{id}/ack",
      summary: "Acknowledge a down alert: its escalation steps and reminders stop",
      description:
        "Vantage extension, both forms. Idempotent for the owner (the first acknowledgement is kept). Only " +
        "`down` events are acknowledged: another type → 409 `conflict`. Another account's id → 404.",
      request: { params: eventIdParam },
      responses: {
        200: { description: "The event, acknowledged", ...jsonContent(envelope(eventSchema)) },
        ...errorResponses(401, 403, 404, 409),
      },
    }),
    async (c) => ok(c, toEventView(await api.acknowledge(requirePrincipal(c), c.req.valid("param").id)), 200),
  );

  app.openapi(
    createRoute({
      tags: ["alerts"],
      method: "get",
      path: "/v1/alert-ack/{token}",
      summary: "The signed acknowledgement link of a message: a page with a button",
      description:
        "Public (the token is the credential). Shows a form that POSTs to the same address; nothing is " +
        "acknowledged by the GET. A token that is altered, expired (7 days) or malformed → 400 `invalid_signature`.",
      request: { params: tokenParam },
      responses: {
        200: { description: "The confirmation page", content: { "text/html": { schema: z.string() } } },
        ...errorResponses(400),
      },
    }),
    (async (c: Context<AppEnv>) => {
      const token = c.req.param("token") ?? "";
      const eventId = readAckToken(deps.box, token, Date.now());
      c.header("cache-control", "no-store");
      c.header("referrer-policy", "no-referrer");
      return c.html(
        page(
          "Acknowledge this alert?",
          `<p>Alert <code>${escapeHtml(eventId)}</code>. Acknowledging stops its escalation and reminders.</p>` +
            `<form method="post"><button type="submit">Acknowledge</button></form>`,
        ),
      );
    }) as never,
  );

  app.openapi(
    createRoute({
      tags: ["alerts"],
      method: "post",
      path: "/v1/alert-ack/{token}",
      summary: "Acknowledge a down alert through its signed link (signed-out, once)",
      description:
        "Public (the token is the credential). The first use acknowledges; a second → 409 `conflict`. An " +
        "altered, expired or malformed token → 400 `invalid_signature`; an event deleted meanwhile → 404. " +
        "With `Accept: text/html` (a browser's form) the answer is a page instead of JSON.",
      request: { params: tokenParam },
      responses: {
        200: {
          description: "Acknowledged",
          content: { ...jsonContent(envelope(ackAnswer)).content, "text/html": { schema: z.string() } },
        },
        ...errorResponses(400, 404, 409),
      },
    }),
    (async (c: Context<AppEnv>) => {
      const eventId = readAckToken(deps.box, c.req.param("token") ?? "", Date.now());
      const done = await acknowledgeEvent(deps.db, eventId, "link");
      if (!done) throw notFound("alert event");
      if (!done.now) throw new ApiError("conflict", "this alert is already acknowledged");
      const at = new Date(done.row.acknowledged_at ?? Date.now()).toISOString();
      if (wantsHtml(c))
        return c.html(
          page("Acknowledged", `<p>Alert <code>${escapeHtml(eventId)}</code> acknowledged at ${at}.</p>`),
        );
      return ok(c, { event_id: eventId, acknowledged_at: at }, 200);
    }) as never,
  );
}
