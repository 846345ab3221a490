import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../../../http/context.js";
import { securedRoute } from "../../../http/route-kit.js";
import type { Router } from "../../../http/router.js";
import type { ApiForm } from "../../../http/security.js";
import type { RenderCache } from "../cache.js";
import type { StatusPagesService } from "../service.js";
import { registerIncidentRoutes } from "./incidents.js";
import { registerMaintenanceRoutes } from "./maintenance.js";
import { registerPageRoutes } from "./pages.js";
import { answerPublic, publicKinds, registerPublicRoutes } from "./public.js";
import { registerSubscriberRoutes } from "./subscribers.js";

/** How long the custom-domain map is used before it is read again (a change here drops it at once). */
const DOMAINS_TTL_MS = 10_000;

export interface DomainMap {
  /** The slug served at `host`, reading the map again when it is older than 10 s. */
  slugOf(host: string): Promise<string | undefined>;
  drop(): void;
}

export function createDomainMap(load: () => Promise<Map<string, string>>, now = Date.now): DomainMap {
  let map: Map<string, string> | undefined;
  let at = 0;
  let loading: Promise<Map<string, string>> | undefined;
  return {
    async slugOf(host) {
      if (!map || now() - at > DOMAINS_TTL_MS) {
        loading ??= load().finally(() => {
          loading = undefined;
        });
        map = await loading;
        at = now();
      }
      return map.get(host);
    },
    drop() {
      map = undefined;
    },
  };
}

/**
 * Serves a page at `/` (and `/status.json`, `/feed.atom`, `/badge/*.svg`) of its custom domain, by the
 * request's Host header. Registered before every other route, for those few paths only.
 */
export function customDomainMiddleware(
  domains: DomainMap,
  cache: RenderCache,
  origin: string,
): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const suffix = c.req.path === "/" ? "" : c.req.path;
    if ((c.req.method !== "GET" && c.req.method !== "HEAD") || !(suffix in publicKinds)) return next();
    const host = (c.req.header("host") ?? "").toLowerCase().replace(/:\d+$/, "");
    const slug = host ? await domains.slugOf(host) : undefined;
    if (slug === undefined) return next();
    return answerPublic(c, cache, slug, suffix, "", origin || `http://${host}`);
  };
}

/**
 * Every route of status pages in the active form: the owner's API, then the public pages. The custom
 * domains' middleware is registered apart, before every other route (`StatusPagesModule.customDomains`).
 */
export function registerStatusPageRoutes(
  app: Router,
  svc: StatusPagesService,
  auth: MiddlewareHandler<AppEnv>,
  form: ApiForm,
  parts: { cache: RenderCache; domains: DomainMap; origin: string },
): void {
  const common = securedRoute("status pages", form, auth);
  registerPageRoutes(app, svc, common, parts.origin);
  registerIncidentRoutes(app, svc, common);
  registerMaintenanceRoutes(app, svc, common);
  registerSubscriberRoutes(app, svc, common);
  registerPublicRoutes(app, svc, parts.cache, parts.origin);
}
