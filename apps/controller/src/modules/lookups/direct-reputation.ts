import { directRoute } from "../../http/direct-routes.js";
import { rateLimitHeaders } from "../../http/rate-limit/index.js";
import type { Router } from "../../http/router.js";
import { plainAddressQuery } from "./direct-ip.js";
import type { LookupsService } from "./service.js";

/** The reputation query's input limit (reputationQuerySchema), before trimming. */
const MAX_QUERY = 255;

/**
 * `GET /v1/ip/reputation?q=…` (the same in both forms) answered before the router (http/direct-routes.ts),
 * as `GET /v1/info/ip` is (direct-ip.ts; issue #31). Only the plain request is answered here, the answer
 * the router gives: one `q` holding a valid address (a domain needs resolving: the router's), no
 * credentials, and an answer ready at once (`LookupsService.reputationNow`: the data in memory, the answer
 * cached or needing no DNS check, the caller's reputation limits decidable now and not reached; taken here
 * as the router's handler takes them, with the same `RateLimit-*` headers). Everything else goes to the
 * router, which validates it (400 `unknown_field`, `validation_error`), checks credentials, refuses over a
 * limit (429) and runs the lookups that wait on the network.
 */
export function directReputationRoute(
  app: Router,
  path: string,
  lookups: Pick<LookupsService, "reputationNow">,
): void {
  const head = '{"data":';
  // What every answer ends with: the cache flag the router adds, then the request id.
  const fresh = ',"cached":false},"request_id":';
  const kept = ',"cached":true},"request_id":';
  directRoute(
    app,
    path,
    (requestId, headers, request) => {
      // One parameter, `q`; a second one (or none) is the router's to refuse.
      const ip = plainAddressQuery(headers, request.query, "q=", MAX_QUERY);
      if (ip === undefined) return undefined;
      const answer = lookups.reputationNow(ip, { kind: "ip", ip: request.clientIp() });
      if (answer === undefined) return undefined;
      const json = JSON.stringify(answer.data);
      return {
        status: 200,
        type: "application/json",
        body: `${head}${json.slice(0, -1)}${answer.cached ? kept : fresh}${JSON.stringify(requestId)}}`,
        ...(answer.quota === undefined ? {} : { headers: rateLimitHeaders(answer.quota) }),
      };
    },
    { query: true },
  );
}
