import type { AppDeps, Module, RoleWorker } from "../../deps.js";
import { chain, optionalAuth } from "../../http/auth.js";
import type { Authenticator } from "../../http/authenticator.js";
import { openRoute } from "../../http/route-kit.js";
import type { Router } from "../../http/router.js";
import type { ApiForm } from "../../http/security.js";
import type { PlansService } from "../plans/index.js";
import { directIpRoute } from "./direct-ip.js";
import { directReputationRoute } from "./direct-reputation.js";
import { IP_ATTRIBUTION, openIpDataFor } from "./ip-data.js";
import { lookupRecordRepo } from "./repo.js";
import { openReputationDataFor } from "./reputation-data.js";
import { dnsRoute } from "./routes/dns.js";
import { icpRoute } from "./routes/icp.js";
import { ipRoute } from "./routes/ip.js";
import { registerLookupRoute } from "./routes/lookup-route.js";
import { reputationRoute } from "./routes/reputation.js";
import { sslRoute } from "./routes/ssl.js";
import { whoisRoute } from "./routes/whois.js";
import { infoService, type LookupsService } from "./service.js";
import { loadWhoisOptions } from "./sources.js";

export { DEFAULT_IP_CACHE_DIR, IP_ATTRIBUTION, type IpData, ipCacheDir } from "./ip-data.js";
export type { LookupAnswer, LookupsService } from "./service.js";

/** The lookup routes' specs of a form (query schema, query → lookup input, field names), for MCP's tools. */
export function lookupSpecs(form: ApiForm) {
  return {
    ip: ipRoute(form),
    whois: whoisRoute(form),
    ssl: sslRoute(form),
    dns: dnsRoute(form),
    icp: icpRoute(form),
    reputation: reputationRoute(form),
  };
}
export type { LookupRouteSpec } from "./routes/lookup-route.js";

export interface LookupsModule extends Module<LookupsService> {
  /** Stops the module's background work before the process ends. */
  drain(): Promise<void>;
}

/**
 * Information lookups (`GET /v1/info/*`): the engines of `@vantage/lookups`, fed from the controller's
 * configuration (IP data, RDAP bootstrap, WHOIS servers, resolver, ICP provider), behind the hourly lookup
 * quota and a short-lived cache. Credentials are optional: they only name whose quota counts.
 */
export function createLookups(
  deps: AppDeps,
  services: { authenticator: Authenticator; plans: PlansService },
): LookupsModule {
  const { config } = deps;
  const provider = config.VANTAGE_ICP_PROVIDER_URL
    ? { url: config.VANTAGE_ICP_PROVIDER_URL, key: config.VANTAGE_ICP_PROVIDER_KEY }
    : undefined;
  const reputationData = openReputationDataFor(config, deps.log, deps.hostLookup);
  const service = infoService({
    limits: services.plans,
    ipData: openIpDataFor(config, deps.log),
    reputation: {
      data: reputationData,
      options: {
        dnsbl: { zones: config.VANTAGE_DNSBL_ZONES, server: config.VANTAGE_DNSBL_RESOLVER },
        rdns: config.VANTAGE_REPUTATION_RDNS,
      },
      timeoutMs: config.VANTAGE_REPUTATION_TIMEOUT_MS,
    },
    records: lookupRecordRepo(deps.db.kysely),
    cacheEntries: config.VANTAGE_LOOKUP_CACHE_ENTRIES,
    context: {
      allowPrivate: config.VANTAGE_ALLOW_PRIVATE_TARGETS,
      timeoutMs: config.VANTAGE_LOOKUP_TIMEOUT_MS,
      dnsServer: config.VANTAGE_DNS_RESOLVER,
      lookup: deps.hostLookup,
      whois: loadWhoisOptions(config),
      icp: { provider },
    },
  });
  // The api role loads the IP and reputation data before its port opens (about 0.1 s from the compiled
  // cache), so the first lookups do not wait. Data that fails to load is logged; its lookups answer 503.
  const data: RoleWorker = {
    role: "api",
    name: "lookup-data",
    async start() {
      await service.ipData
        .current()
        .catch((err: unknown) => deps.log.error({ err }, "IP data failed to load: IP lookups answer 503"));
      await service.reputationData
        .current()
        .catch((err: unknown) =>
          deps.log.error({ err }, "reputation data failed to load: reputation lookups answer 503"),
        );
    },
    async stop() {},
  };
  return {
    service,
    workers: [data],
    routes(app: Router) {
      const form = config.VANTAGE_API_FORM;
      const auth = optionalAuth(services.authenticator);
      const lookupsAuth = chain(auth, services.plans.gate("lookups"));
      for (const spec of [ipRoute, whoisRoute, sslRoute, dnsRoute, icpRoute]) {
        registerLookupRoute(app, service, openRoute("lookups", form, lookupsAuth), spec(form));
      }
      // The plain IP lookup, the route a public deployment gets most, also before the router (#31).
      directIpRoute(app, ipRoute(form).path, form, service.ipData, services.plans, IP_ATTRIBUTION);
      const reputationAuth = chain(auth, services.plans.gate("reputation"));
      registerLookupRoute(app, service, openRoute("lookups", form, reputationAuth), reputationRoute(form));
      directReputationRoute(app, reputationRoute(form).path, service);
    },
    async drain() {
      reputationData.stop();
    },
  };
}
