import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { createRoute, z } from "@hono/zod-openapi";
import { Scalar } from "@scalar/hono-api-reference";
import type { AppDeps } from "../../deps.js";
import { errorResponses } from "../../http/envelope.js";
import { unavailableError } from "../../http/errors.js";
import { metricsHandler } from "../../http/metrics-endpoint.js";
import type { Router } from "../../http/router.js";

const require = createRequire(import.meta.url);

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

function registerSystem(app: Router, deps: AppDeps): void {
  app.openapi(healthRoute, (c) => c.json({ status: "ok" as const }, 200));

  app.openapi(readyRoute, async (c) => {
    if (!deps.db.migrated) {
      throw unavailableError("migrations have not finished");
    }
    try {
      await deps.db.ping();
    } catch (err) {
      c.get("log").warn({ err }, "readiness: database unreachable");
      throw unavailableError("database unreachable");
    }
    if (!deps.transport.connected()) {
      throw unavailableError("no link to the probe nodes (NATS): reconnecting");
    }
    return c.json({ status: "ready" as const, database: deps.db.kind, transport: deps.transport.kind }, 200);
  });

  // Prometheus text, outside the OpenAPI document. With VANTAGE_METRICS_LISTEN it is served by its own
  // server (runtime.ts, api role) and this port has no /metrics; VANTAGE_METRICS_TOKEN guards it on either.
  if (!deps.config.VANTAGE_METRICS_LISTEN) {
    app.get("/metrics", metricsHandler(deps.metrics, deps.config.VANTAGE_METRICS_TOKEN));
  }

  app.get("/", (c) =>
    c.json({
      data: {
        service: "vantage",
        api_form: deps.config.VANTAGE_API_FORM,
        docs: "/docs",
        openapi: "/v1/openapi.json",
        nodes: "/v1/nodes",
      },
      request_id: c.get("requestId"),
    }),
  );

  // The docs page loads its script from this server, never from a CDN; no web fonts either (Scalar's
  // default ones come from fonts.scalar.com): the page uses the system's fonts.
  let standalone: string | undefined;
  app.get("/docs/standalone.js", (c) => {
    standalone ??= readFileSync(
      join(dirname(require.resolve("@scalar/api-reference")), "browser", "standalone.js"),
      "utf8",
    );
    c.header("Cache-Control", "public, max-age=3600");
    c.header("Content-Type", "application/javascript; charset=utf-8");
    return c.body(standalone);
  });
  app.get(
    "/docs",
    Scalar({
      url: "/v1/openapi.json",
      cdn: "/docs/standalone.js",
      pageTitle: "Vantage API",
      withDefaultFonts: false,
    }),
  );
}
