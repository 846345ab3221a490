import { z } from "@hono/zod-openapi";
import { ipResultSchema } from "@vantage/lookups";
import { clientIpOf } from "../../../http/context.js";
import type { ApiForm } from "../../../http/security.js";
import { IP_ATTRIBUTION } from "../ip-data.js";
import { type LookupRouteSpec, optional, required } from "./lookup-route.js";

const common = {
  kind: "ip",
  path: "/v1/info/ip",
  summary: "IP attribution: country, ASN and AS organisation (`isp`) of an IPv4 or IPv6 address",
  result: ipResultSchema,
  extra: { attribution: IP_ATTRIBUTION },
  extraSchema: {
    attribution: z.string().openapi({ description: "Credit the data's licences ask for (CC BY 4.0)" }),
  },
  errors: [503],
  description:
    "Answered from data shipped with the service (ip-location-db: RouteViews, RIR and DB-IP data; no " +
    "network at run time); `data_version` names its build. `isp` is the organisation holding the AS, not " +
    "a retail ISP. Private, loopback, link-local, CGNAT, documentation and other special addresses are " +
    "answered `reserved: true` with the range's name, never looked up.",
} as const;

/** Form A: `q`, required. */
const formA: LookupRouteSpec = {
  ...common,
  query: z.strictObject({ q: required("IPv4 or IPv6 address", "8.8.8.8") }),
  input: (q) => ({ ip: q.q }),
  fieldNames: { ip: "q" },
};

/** Form B: `ip`, optional; blank or absent looks up the caller's own address. */
const formB: LookupRouteSpec = {
  ...common,
  description: `${common.description} Without \`ip\` (or blank) the caller's own address is looked up: the socket's peer, or the client named in \`X-Forwarded-For\` when the peer is one of \`VANTAGE_TRUSTED_PROXIES\`.`,
  query: z.strictObject({ ip: optional("IPv4 or IPv6 address; blank = your own", "2001:4860:4860::8888") }),
  input: (q, c) => ({ ip: q.ip?.trim() ? q.ip : clientIpOf(c) }),
  fieldNames: { ip: "ip" },
};

export const ipRoute = (form: ApiForm): LookupRouteSpec => (form === "a" ? formA : formB);
