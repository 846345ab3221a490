import type { Config } from "./config.js";
import type { AppDeps } from "./deps.js";
import { installCore } from "./http/core.js";
import { handleError } from "./http/errors-handler.js";
import { notFoundHandler } from "./http/not-found.js";
import { createRouter, type Router } from "./http/router.js";
import { registerSecuritySchemes } from "./http/security.js";
import { type AccountsModule, createAccounts } from "./modules/accounts/index.js";
import { type AlertsModule, createAlerts } from "./modules/alerts/index.js";
import { type BillingModule, createBilling } from "./modules/billing/index.js";
import { createDelivery, type DeliveryModule } from "./modules/delivery/index.js";
import { createLookups, type LookupsModule } from "./modules/lookups/index.js";
import { createMcp, type McpModule } from "./modules/mcp/index.js";
import { createMonitors, type MonitorsModule } from "./modules/monitors/index.js";
import { createNodes, type NodesModule } from "./modules/nodes/index.js";
import { createPlans, type PlansModule } from "./modules/plans/index.js";
import { createProbes, type ProbesModule } from "./modules/probes/index.js";
import { createStatusPages, type StatusPagesModule } from "./modules/status-pages/index.js";
import { createSystem } from "./modules/system/index.js";

/** Every module of the controller, created once; each reaches the others only through their `service`. */
export interface Modules {
  delivery: DeliveryModule;
  accounts: AccountsModule;
  nodes: NodesModule;
  probes: ProbesModule;
  lookups: LookupsModule;
  plans: PlansModule;
  monitors: MonitorsModule;
  alerts: AlertsModule;
  billing: BillingModule;
  mcp: McpModule;
  statusPages: StatusPagesModule;
}

export interface App {
  /** The Hono application; `app.fetch` serves, `app.request` is for tests. It never listens by itself. */
  app: Router;
  /** The OpenAPI 3.1 document of the active form, generated on the first call and kept. */
  openapi(): Record<string, unknown>;
  /** The modules, for the runtime's roles (their workers) and for in-process callers (their services). */
  modules: Modules;
  /**
   * Waits for background work started by requests (Form A probe dispatch, Form B writes); call before
   * closing deps. Writes still failing `graceMs` later (the database away) are given up and logged.
   */
  drain(graceMs?: number): Promise<void>;
}

/**
 * The composition root: creates each module once, hands each the services it needs, and registers every
 * module's routes on one router for the active API form. Nothing imports this file back but the runtime
 * and the test harness.
 */
export function createApp(deps: AppDeps): App {
  const form = deps.config.VANTAGE_API_FORM;
  const delivery = createDelivery(deps);
  const accounts = createAccounts(deps, { delivery: delivery.service });
  const authenticator = accounts.service.authenticator;
  const plans = createPlans(deps, { authenticator });
  const nodes = createNodes(deps, { authenticator });
  const lookups = createLookups(deps, { authenticator, plans: plans.service });
  const probes = createProbes(deps, {
    nodes: nodes.service,
    authenticator,
    plans: plans.service,
    // Traceroute and mtr hops get their networks from the lookups module's IP data (loaded on first use).
    hopNetworks: () => lookups.service.ipData.current(),
  });
  const monitors = createMonitors(deps, { probes: probes.service, authenticator, nodes: nodes.service });
  const alerts = createAlerts(deps, {
    delivery: delivery.service,
    authenticator,
    accounts: accounts.service,
    plans: plans.service,
    maintenance: { covering: (items, tx) => monitors.maintenance.covering(items, tx) },
  });
  const statusPages = createStatusPages(deps, {
    authenticator,
    monitors: monitors.statusReader,
    delivery: delivery.service,
    box: alerts.box,
    windows: monitors.maintenance,
  });
  const billing = createBilling(deps, { authenticator, accounts: accounts.service });
  const mcp = createMcp(deps, {
    probes: probes.service,
    lookups: lookups.service,
    nodes: nodes.service,
    monitors: monitors.service,
    shares: probes.shares,
    authenticator,
  });
  const system = createSystem(deps);
  // Deleting an account: the provider's subscription ends first (a failure deletes nothing); then, in one
  // transaction, the rows no foreign key to `users` removes (probe tasks and their shares go by cascade).
  accounts.onDelete({ name: "billing", prepare: (userId) => billing.closeAccount(userId) });
  const nothingAfter = () => undefined;
  accounts.onDelete({ name: "monitors", erase: (tx, id) => monitors.eraseOwner(tx, id).then(nothingAfter) });
  accounts.onDelete({ name: "status pages", erase: (tx, userId) => statusPages.eraseOwner(tx, userId) });

  const app = createRouter();
  installCore(app, {
    log: deps.log,
    metrics: deps.metrics,
    accessLog: deps.config.VANTAGE_ACCESS_LOG,
    trustedProxies: deps.config.VANTAGE_TRUSTED_PROXIES,
    bodyLimit: deps.config.VANTAGE_BODY_LIMIT_BYTES,
    refusedLimit: deps.config.VANTAGE_REFUSED_LIMIT_IP,
  });
  registerSecuritySchemes(app, form);
  // A custom domain's Host header serves its status page at `/`: before every route, the system's `/` too.
  statusPages.customDomains(app);
  for (const m of [
    system,
    nodes,
    accounts,
    plans,
    probes,
    lookups,
    monitors,
    alerts,
    statusPages,
    billing,
    mcp,
  ])
    m.routes?.(app);
  app.notFound(notFoundHandler(() => app.routes));
  app.onError(handleError);

  // The document is generated on first use, not here: it took a fifth of a second of CPU per app, and most
  // applications (every test's, a controller whose /v1/openapi.json nobody asks for) never read it.
  let openapi: Record<string, unknown> | undefined;
  let openapiBody: string | undefined;
  const document = (): Record<string, unknown> =>
    (openapi ??= app.getOpenAPI31Document({
      openapi: "3.1.0",
      info: {
        title: `Vantage API (Form ${form.toUpperCase()})`,
        version: "1.0.0",
        description: apiDescription(deps.config, routeTags(app), billing.configured),
      },
      servers: [{ url: deps.config.VANTAGE_PUBLIC_URL ?? "/" }],
    }) as unknown as Record<string, unknown>);
  app.get("/v1/openapi.json", (c) => {
    openapiBody ??= JSON.stringify(document());
    c.header("Content-Type", "application/json; charset=utf-8");
    return c.body(openapiBody);
  });

  return {
    app,
    openapi: document,
    modules: {
      delivery,
      accounts,
      nodes,
      probes,
      lookups,
      plans,
      monitors,
      alerts,
      billing,
      mcp,
      statusPages,
    },
    async drain(graceMs) {
      await Promise.all([probes.drain(graceMs), lookups.drain()]);
      // Last: what the others charged and metered while draining is written too.
      await plans.drain();
    },
  };
}

/** The tags of the routes registered on `app`, in registration order: the sections the document holds. */
function routeTags(app: Router): string[] {
  const tags = app.openAPIRegistry.definitions.flatMap((d) =>
    d.type === "route" ? (d.route.tags ?? []) : [],
  );
  return [...new Set(tags)];
}

/** What each section offers, in the order the description lists them. */
const sectionBlurbs: Record<string, string> = {
  probes: "http, ping, dns, tcp, traceroute and mtr, run from the probe nodes",
  nodes: "the probe nodes and whether they are online",
  lookups: "IP, DNS, WHOIS, TLS certificate and ICP filing lookups; IP reputation",
  monitors: "probes on a schedule, with their state, results and uptime",
  alerts: "alert channels and policies, and the events they raised",
  account: "registration, login, email verification, profile, API keys, tokens, usage and account deletion",
  billing: "subscriptions through Stripe Checkout, cancellation, the customer portal and invoices",
  "status pages":
    "public status pages per account: components, 90-day uptime, incidents, maintenance, subscribers",
  mcp: "the Model Context Protocol entry point for AI assistants: probes, lookups, nodes and monitors as tools",
  operations: "liveness and readiness",
};

/**
 * The document's description: what this deployment serves, as configured, and nothing it does not (the
 * docs page shows it first). Billing's routes always exist; without every Stripe setting the ones that
 * need Stripe answer 503, and the description says so.
 */
function apiDescription(config: Config, tags: readonly string[], billingReady: boolean): string {
  const form =
    config.VANTAGE_API_FORM === "a"
      ? "**API Form A**: probe options under `params`; credentials only as `Authorization: Bearer`; a probe " +
        "answers 202 with a task to poll at `GET /v1/probe/tasks/{task_id}`"
      : "**API Form B**: flat request bodies; credentials as `Authorization: Bearer` or `X-API-Key`; a probe " +
        "answers 200 once every node has answered";
  const blurbs: Record<string, string> = {
    ...sectionBlurbs,
    ...(billingReady
      ? {}
      : {
          billing:
            "not set up on this deployment (Stripe is not configured): the subscription (the account's plan) and " +
            "invoices read as usual; subscribing, cancelling, the customer portal and the Stripe webhook answer " +
            "503 `billing_not_configured`",
        }),
  };
  const known = Object.keys(sectionBlurbs).filter((t) => tags.includes(t));
  const sections = [...known, ...tags.filter((t) => !known.includes(t))].map((t) =>
    blurbs[t] ? `- **${t}**: ${blurbs[t]}` : `- **${t}**`,
  );
  const base = config.VANTAGE_PUBLIC_URL?.replace(/\/+$/, "") ?? "";
  return [
    `Global network diagnostics, as this deployment serves them. It speaks ${form}.`,
    sections.join("\n"),
    ...(config.SMTP_URL
      ? []
      : [
          "It sends no email (no SMTP server set up): verification mail and email alerts go to the server's log.",
        ]),
    "Every success is `{data, request_id}`; every error is `{error: {code, message, details?}, request_id}`. " +
      `This reference: [${base}/docs](${base}/docs); the document: [${base}/v1/openapi.json](${base}/v1/openapi.json).`,
  ].join("\n\n");
}
