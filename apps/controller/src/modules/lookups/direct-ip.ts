import type { IncomingHttpHeaders } from "node:http";
import { answerIp, canonicalIp } from "@vantage/lookups";
import { directRoute } from "../../http/direct-routes.js";
import { rateLimitHeaders } from "../../http/rate-limit/index.js";
import type { Router } from "../../http/router.js";
import type { ApiForm } from "../../http/security.js";
import type { PlansService } from "../plans/index.js";
import type { IpData } from "./ip-data.js";

/** The router's query limit (lookup-route.ts `required`/`optional`). */
const MAX_VALUE = 1024;
/** The IP lookup's input limit (ipAddressSchema), before trimming. */
const MAX_ADDRESS = 64;

/**
 * The address of a plain anonymous lookup, as a direct route may answer it: no credentials, and a query of
 * exactly one `<name>=` parameter (`prefix`) holding, once percent-decoded, a valid IP address within the
 * route's input limit (`maxLength`, before trimming). Undefined for anything else: the router validates
 * it, checks credentials and answers (a `+`, a space in a query, is left to the router's decoding too).
 */
export function plainAddressQuery(
  headers: IncomingHttpHeaders,
  query: string,
  prefix: string,
  maxLength: number,
): string | undefined {
  if (headers.authorization !== undefined || headers["x-api-key"] !== undefined) return undefined;
  if (!query.startsWith(prefix) || query.indexOf("&") >= 0) return undefined;
  let raw = query.slice(prefix.length);
  if (raw.length === 0 || raw.length > MAX_VALUE * 3 || raw.indexOf("+") >= 0) return undefined;
  if (raw.indexOf("%") >= 0) {
    try {
      raw = decodeURIComponent(raw);
    } catch {
      return undefined;
    }
  }
  if (raw.length > MAX_VALUE || raw.length > maxLength || raw.trim() === "") return undefined;
  const address = canonicalIp(raw);
  return address.ok ? address.ip : undefined;
}

/**
 * `GET /v1/info/ip?ip=…` (Form A `?q=…`) answered before the router (http/direct-routes.ts): the route a
 * public deployment is asked most (issue #31). Only the plain request is answered here, the same answer
 * the router gives: one parameter of the form's name holding a valid address, no credentials, the data
 * loaded and the caller's lookup limits decidable at once and not reached (taken here, as the router's
 * handler takes them, with the same `RateLimit-*` headers). Everything else goes to the router, which
 * validates it (400 `unknown_field`, `validation_error`), checks credentials, refuses over a limit (429)
 * and looks up a blank Form B `ip` as the caller's own address.
 */
export function directIpRoute(
  app: Router,
  path: string,
  form: ApiForm,
  ipData: IpData,
  plans: Pick<PlansService, "chargeNow">,
  attribution: string,
): void {
  const prefix = form === "a" ? "q=" : "ip=";
  // What every answer ends with, encoded once: the extra field and the cache flag the router adds.
  const tail = `,"attribution":${JSON.stringify(attribution)},"cached":false},"request_id":`;
  directRoute(
    app,
    path,
    (requestId, headers, request) => {
      const data = ipData.loaded();
      if (data === undefined) return undefined;
      // One parameter, of the form's name; a second one (or none) is the router's to refuse or default.
      const ip = plainAddressQuery(headers, request.query, prefix, MAX_ADDRESS);
      if (ip === undefined) return undefined;
      const result = answerIp(ip, data);
      const quota = plans.chargeNow("lookups", { kind: "ip", ip: request.clientIp() }, 1);
      if (quota === false) return undefined;
      const json = JSON.stringify(result);
      return {
        status: 200,
        type: "application/json",
        body: `{"data":${json.slice(0, -1)}${tail}${JSON.stringify(requestId)}}`,
        ...(quota === undefined ? {} : { headers: rateLimitHeaders(quota) }),
      };
    },
    { query: true },
  );
}
