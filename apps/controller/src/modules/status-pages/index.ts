import type { Transaction } from "kysely";
import { logRoundFailure } from "../../db/availability.js";
import type { Database } from "../../db/schema.js";
import type { AppDeps, Module } from "../../deps.js";
import { requireAuth } from "../../http/auth.js";
import type { Authenticator } from "../../http/authenticator.js";
import type { Router } from "../../http/router.js";
import { type PollLoop, startPollLoop } from "../../lib/poll-loop.js";
import type { SecretBox } from "../../lib/secret-box.js";
import type { DeliveryService } from "../delivery/index.js";
import type { MonitorStatusReader } from "../monitors/index.js";
import { RenderCache } from "./cache.js";
import { slugsOf } from "./repo.js";
import { createDomainMap, customDomainMiddleware, registerStatusPageRoutes } from "./routes/register.js";
import { createStatusPagesService, type StatusPagesService } from "./service.js";
import type { WindowSource } from "./snapshot.js";
import { sendDueWebhooks } from "./webhooks.js";

export type { StatusPagesService } from "./service.js";

export interface StatusPagesModule extends Module<StatusPagesService> {
  /** One notifier round (automatic incidents, then webhook notices); tests call it instead of waiting. */
  runOnce(): Promise<void>;
  /**
   * Serves a page at `/` (and its feed, JSON and badges) of its custom domain by the Host header: app.ts
   * registers this before every other route, so it answers before the system's `/`.
   */
  customDomains(app: Router): void;
  /**
   * In an account's deletion (its transaction): the pages go with the user row; answers the drop of their
   * renderings cached here, for after the commit (other controllers' expire within `CACHE_TTL_MS`).
   */
  eraseOwner(tx: Transaction<Database>, ownerId: string): Promise<() => void>;
}

/** How often the notifier looks for monitors gone down or up on pages, and for webhook notices due. */
const ROUND_MS = 5_000;

/**
 * Status pages (issue #29 item 5): public pages per account with components over monitors, 90-day bars from
 * the monitors' roll-ups, incidents (by hand, or opened by a component's monitor going down), scheduled
 * maintenance and subscribers (email with double opt-in through the outbox; signed webhooks). Public
 * renderings (HTML without JavaScript, JSON, Atom, SVG badges) are kept in memory briefly.
 */
export function createStatusPages(
  deps: AppDeps,
  services: {
    authenticator: Authenticator;
    monitors: MonitorStatusReader;
    delivery: DeliveryService;
    /** Seals webhook subscribers' secrets (the alerts' box); undefined without VANTAGE_SECRET_KEY. */
    box: SecretBox | undefined;
    /** The monitors' maintenance windows (shown on pages whose monitors they cover), when that module has them. */
    windows?: WindowSource | undefined;
  },
): StatusPagesModule {
  const { config } = deps;
  const db = deps.db.kysely;
  // Without VANTAGE_SECRET_KEY in distributed mode: webhook subscribers are refused (503), the rest works.
  const box = services.box;
  const origin = config.VANTAGE_PUBLIC_URL?.replace(/\/+$/, "") ?? "";
  let cache: RenderCache | undefined;
  const domains = createDomainMap(() => service.customDomains());
  const service = createStatusPagesService({
    db,
    log: deps.log,
    monitors: services.monitors,
    delivery: services.delivery,
    box,
    allowPrivate: config.VANTAGE_ALLOW_PRIVATE_TARGETS,
    publicBase: origin,
    changed(slugs) {
      for (const s of slugs) cache?.drop(s);
      domains.drop();
    },
    now: Date.now,
    windows: services.windows,
  });
  cache = new RenderCache((slug) => service.snapshot(slug));

  const runOnce = async () => {
    await service.autoIncidentRound();
    await sendDueWebhooks({
      db,
      log: deps.log,
      box,
      allowPrivate: config.VANTAGE_ALLOW_PRIVATE_TARGETS,
      lookup: deps.hostLookup,
      now: Date.now,
    });
  };
  let loop: PollLoop | undefined;

  return {
    service,
    runOnce,
    async eraseOwner(tx, ownerId) {
      const slugs = await slugsOf(tx, ownerId);
      return () => {
        for (const s of slugs) cache?.drop(s);
        domains.drop();
      };
    },
    customDomains(app: Router) {
      app.use("*", customDomainMiddleware(domains, cache as RenderCache, origin));
    },
    routes(app: Router) {
      registerStatusPageRoutes(app, service, requireAuth(services.authenticator), config.VANTAGE_API_FORM, {
        cache: cache as RenderCache,
        domains,
        origin,
      });
    },
    workers: [
      {
        role: "notifier",
        name: "status-pages",
        async start() {
          loop ??= startPollLoop({
            round: runOnce,
            everyMs: ROUND_MS,
            onError: (err) =>
              logRoundFailure(deps.log, err, "status page incidents or webhooks failed; trying again"),
          });
        },
        async stop() {
          await loop?.stop();
          loop = undefined;
        },
      },
    ],
  };
}
