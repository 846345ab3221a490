import { z } from "@hono/zod-openapi";
import { dnsRecordsResultSchema } from "@vantage/lookups";
import type { ApiForm } from "../../../http/security.js";
import { type LookupRouteSpec, optional, required } from "./lookup-route.js";

const common = {
  kind: "dns",
  path: "/v1/info/dns",
  summary: "DNS records of a domain (A, AAAA, MX, TXT, NS, CNAME, SOA) with their TTLs",
  description:
    "Asks the controller's resolver (`VANTAGE_DNS_RESOLVER`, else the system's) over the wire, so every " +
    "record carries its TTL. Without `type` (or blank) all seven types are asked. A name that does not " +
    "exist is a 200 with `status: NXDOMAIN` and no records; values are in dig's presentation format. When " +
    "the resolver refuses or fails some of the types asked and answers others, the answer holds the records " +
    "answered and `failed_types` names the others with their error; only when every type fails is it an " +
    "error (502, 504).",
  result: dnsRecordsResultSchema,
  errors: [422, 502, 504],
} as const;

const type = optional("A, AAAA, MX, TXT, NS, CNAME or SOA; blank = all", "MX");

/** Form A: `q` and `type`. */
const formA: LookupRouteSpec = {
  ...common,
  query: z.strictObject({ q: required("Domain name", "example.com"), type }),
  input: (q) => ({ domain: q.q, type: q.type }),
  fieldNames: { domain: "q", type: "type" },
};

/** Form B: `domain` and `type`. */
const formB: LookupRouteSpec = {
  ...common,
  query: z.strictObject({ domain: required("Domain name", "example.com"), type }),
  input: (q) => ({ domain: q.domain, type: q.type }),
  fieldNames: { domain: "domain", type: "type" },
};

export const dnsRoute = (form: ApiForm): LookupRouteSpec => (form === "a" ? formA : formB);
