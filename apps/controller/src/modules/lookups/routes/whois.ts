import { z } from "@hono/zod-openapi";
import { whoisResultSchema } from "@vantage/lookups";
import type { ApiForm } from "../../../http/security.js";
import { type LookupRouteSpec, required } from "./lookup-route.js";

/** Both forms take `q`: a domain or an IP address. */
const spec: LookupRouteSpec = {
  kind: "whois",
  path: "/v1/info/whois",
  summary: "WHOIS of a domain or an IP address: registrar, expiry, name servers",
  description:
    "RDAP first (the IANA bootstrap shipped with the service, or `VANTAGE_RDAP_BOOTSTRAP`), port-43 WHOIS " +
    "when the TLD has no RDAP server or RDAP fails (IANA referral, then at most one registrar hop). " +
    "`source` says which answered, `server` which server. A domain that is not registered is 404 " +
    "`not_found`. Internationalised names are looked up in punycode.",
  query: z.strictObject({ q: required("Domain name or IP address", "example.com") }),
  input: (q) => ({ query: q.q }),
  fieldNames: { query: "q" },
  result: whoisResultSchema,
  errors: [404, 422, 502, 504],
};

export const whoisRoute = (_form: ApiForm): LookupRouteSpec => spec;
