import { createRoute, z } from "@hono/zod-openapi";
import { describeDbError, isDatabaseUnavailable } from "../../db/availability.js";
import type { AppDeps } from "../../deps.js";
import { logOf, requestIdOf } from "../../http/context.js";
import { type DirectAnswer, directRoute } from "../../http/direct-routes.js";
import { errorResponses } from "../../http/envelope.js";
import { unavailableError } from "../../http/errors.js";
import { metricsHandler } from "../../http/metrics-endpoint.js";
import type { Router } from "../../http/router.js";
import { dashboard, webDir } from "./dashboard.js";
import { registerDocsPage } from "./docs-page.js";

const healthRoute = createRoute({
  method: "get",
  path: "/healthz",
  tags: ["operations"],
  summary: "Liveness: the process answers",
  responses: {
    200: {
      description: "Alive",
      content: { "application/json": { schema: z.object({ status: z.literal("ok") }) } },
    },
  },
});

const readyRoute = createRoute({
  method: "get",
  path: "/readyz",
  tags: ["operations"],
  summary: "Readiness: database reachable and migrations done",
  responses: {
    200: {
      description: "Ready",
      content: {
        "application/json": {
          schema: z.object({
            status: z.literal("ready"),
            database: z.enum(["postgres", "pglite"]),
            transport: z.string(),
          }),
        },
      },
    },
    ...errorResponses(503),
  },
});

/** Operations endpoints: health, readiness, metrics, the landing document and the API docs page. */
export function createSystem(deps: AppDeps): { routes(app: Router): void } {
  return { routes: (app) => registerSystem(app, deps) };
}

/** `GET /healthz`'s answer, the same bytes `c.json` makes. */
const alive: DirectAnswer = { status: 200, type: "application/json", body: JSON.stringify({ status: "ok" }) };

function registerSystem(app: Router, deps: AppDeps): void {
  app.openapi(healthRoute, (c) => c.json({ status: "ok" as const }, 200));
  // Load balancers poll it: answered before the router under Node's server.
  directRoute(app, healthRoute.path, () => alive);

  app.openapi(readyRoute, async (c) => {
    if (!deps.db.migrated) {
      throw unavailableError("migrations have not finished");
    }
    try {
      await deps.db.ping();
    } catch (err) {
      // An outage is logged once, when it begins (runtime.ts); a load balancer polls this all along.
      if (isDatabaseUnavailable(err))
        logOf(c)?.debug({ db_error: describeDbError(err) }, "readiness: database unreachable");
      else logOf(c)?.warn({ err }, "readiness: database unreachable");
      throw unavailableError("database unreachable");
    }
    if (!deps.transport.connected()) {
      throw unavailableError("no link to the probe nodes (NATS): reconnecting");
    }
    return c.json({ status: "ready" as const, database: deps.db.kind, transport: deps.transport.kind }, 200);
  });

  // Prometheus text, outside the OpenAPI document. With VANTAGE_METRICS_LISTEN it is served by its own
  // server (runtime.ts, with any roles) and this port has no /metrics; VANTAGE_METRICS_TOKEN guards it on either.
  if (!deps.config.VANTAGE_METRICS_LISTEN) {
    app.get("/metrics", metricsHandler(deps.metrics, deps.config.VANTAGE_METRICS_TOKEN));
  }

  // Browsers get the dashboard; API clients (no text/html in Accept) the landing document.
  const web = dashboard(webDir(deps.config.VANTAGE_WEB_DIR), deps.config.VANTAGE_API_FORM);
  web.routes(app);
  app.get("/", (c) =>
    /\btext\/html\b/.test(c.req.header("accept") ?? "")
      ? web.page(c)
      : c.json({
          data: {
            service: "vantage",
            api_form: deps.config.VANTAGE_API_FORM,
            docs: "/docs",
            openapi: "/v1/openapi.json",
            nodes: "/v1/nodes",
            dashboard: "/",
          },
          request_id: requestIdOf(c),
        }),
  );

  // The docs page: its script and everything it shows come from this server (docs-page.ts).
  registerDocsPage(app);
}
