import type { ControllerTransport } from "@vantage/transport";
import type { Logger } from "pino";
import type { Config } from "./config.js";
import type { Db } from "./db/connect.js";
import { coreMiddleware } from "./http/core-middleware.js";
import { handleError } from "./http/errors-handler.js";
import type { HttpMetrics } from "./http/metrics.js";
import { notFoundHandler } from "./http/not-found.js";
import { createRouter, type Router } from "./http/router.js";
import { registerSecuritySchemes } from "./http/security.js";
import { registerAccounts } from "./modules/accounts/index.js";
import { dbNodeDirectory, type NodeDirectory, registerNodes } from "./modules/nodes/index.js";
import { BackgroundWork, registerProbes } from "./modules/probes/index.js";
import { registerSystem } from "./modules/system/index.js";

export interface AppDeps {
  config: Config;
  db: Db;
  log: Logger;
  transport: ControllerTransport;
  metrics: HttpMetrics;
  /** The presence role's node directory; without it, probes read the `nodes` table. */
  nodes?: NodeDirectory | undefined;
}

export interface App {
  /** The Hono application; `app.fetch` serves, `app.request` is for tests. It never listens by itself. */
  app: Router;
  /** The OpenAPI 3.1 document of the active form, generated once. */
  openapi: Record<string, unknown>;
  /** Waits for background work started by requests (Form A probe dispatch); call before closing deps. */
  drain(): Promise<void>;
}

/** Builds the HTTP application for the active API form from its dependencies. */
export function createApp(deps: AppDeps): App {
  const form = deps.config.VANTAGE_API_FORM;
  const app = createRouter();

  app.use(
    "*",
    coreMiddleware({
      log: deps.log,
      metrics: deps.metrics,
      accessLog: deps.config.VANTAGE_ACCESS_LOG,
      trustedProxies: deps.config.VANTAGE_TRUSTED_PROXIES,
      bodyLimit: deps.config.VANTAGE_BODY_LIMIT_BYTES,
    }),
  );

  registerSecuritySchemes(app, form);
  // One directory for the node list and for picking nodes: the presence role's, else the table's.
  const nodes = deps.nodes ?? dbNodeDirectory(deps.db.kysely);
  deps = { ...deps, nodes };
  registerSystem(app, deps);
  registerNodes(app, deps, nodes);
  registerAccounts(app, deps);
  const background = new BackgroundWork();
  const probes = registerProbes(app, deps, background);

  app.notFound(notFoundHandler(() => app.routes));
  app.onError(handleError);

  const openapi = app.getOpenAPI31Document({
    openapi: "3.1.0",
    info: {
      title: `Vantage API (Form ${form.toUpperCase()})`,
      version: "1.0.0",
      description:
        "Global network diagnostics: multi-node probes, lookups, reputation, accounts, monitors and alerts. " +
        "Every success is `{data, request_id}`; every error is `{error: {code, message, details?}, request_id}`.",
    },
    servers: [{ url: deps.config.VANTAGE_PUBLIC_URL ?? "/" }],
  }) as unknown as Record<string, unknown>;
  const openapiBody = JSON.stringify(openapi);
  app.get("/v1/openapi.json", (c) => {
    c.header("Content-Type", "application/json; charset=utf-8");
    return c.body(openapiBody);
  });

  return { app, openapi, drain: () => probes.drain() };
}
