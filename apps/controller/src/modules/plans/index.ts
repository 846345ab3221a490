import type { AppDeps, Module } from "../../deps.js";
import { requireAuth } from "../../http/auth.js";
import type { Authenticator } from "../../http/authenticator.js";
import { syncedRateLimitStore } from "../../http/rate-limit/index.js";
import { securedRoute } from "../../http/route-kit.js";
import type { Router } from "../../http/router.js";
import { UsageMeter } from "./meter.js";
import { registerGetUsage } from "./routes/get-usage.js";
import { type PlansService, plansService } from "./service.js";

export { type UsageFamily, usageFamilies } from "./families.js";
export type { PlansService, UsageReport } from "./service.js";

export interface PlansModule extends Module<PlansService> {
  /** The last limit counts and metered use, written before the process ends (SIGTERM). */
  drain(): Promise<void>;
}

/**
 * Plans, limits and metering: the plan table (`VANTAGE_PLAN_LIMITS` over the defaults), the per-IP,
 * per-credential and per-account limits of every limited family (counted here, shared through the
 * `rate_limits` table), and the usage meter billing reads (`usage_daily`). Probes, lookups and reputation
 * charge and record through the service; `GET /v1/account/usage` shows it.
 */
export function createPlans(deps: AppDeps, services: { authenticator: Authenticator }): PlansModule {
  const { config } = deps;
  const counters = syncedRateLimitStore(deps.db.kysely, {
    syncMs: config.VANTAGE_LIMIT_SYNC_MS,
    onError: (err) => deps.log.warn({ err }, "limit counters not shared yet; retrying"),
  });
  const meter = new UsageMeter(deps.db.kysely, {
    flushMs: config.VANTAGE_USAGE_FLUSH_MS,
    onError: (err) => deps.log.warn({ err }, "metered use not written yet; retrying"),
  });
  const service = plansService({
    db: deps.db.kysely,
    table: config.VANTAGE_PLAN_LIMITS,
    counters,
    meter,
  });
  return {
    service,
    routes(app: Router) {
      const common = securedRoute("account", config.VANTAGE_API_FORM, requireAuth(services.authenticator));
      registerGetUsage(app, service, common);
    },
    async drain() {
      await Promise.all([counters.stop(), meter.stop()]);
    },
  };
}
