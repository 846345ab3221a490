import { z } from "@hono/zod-openapi";
import { RISK_BANDS, reputationResultSchema } from "@vantage/lookups";
import type { ApiForm } from "../../../http/security.js";
import { type LookupRouteSpec, required } from "./lookup-route.js";

const bands = RISK_BANDS.map((b) => `${b.level} ${b.min}–${b.max}`).join(", ");

/** `GET /v1/ip/reputation`: the same `q` in both forms. */
const spec: LookupRouteSpec = {
  kind: "reputation",
  path: "/v1/ip/reputation",
  summary: "IP reputation: a 0–100 risk score, its level, type tags and the evidence behind them",
  description:
    "Transparent additive scoring: each signal family (Tor exit, VPN, hosting/cloud, DNSBL listings, " +
    "reverse DNS) contributes at most one evidence item, and `score` is the sum of their weights, capped at " +
    `100 (\`score_capped\` says when). Risk levels: ${bands}. \`signals_checked\` and \`signals_unavailable\` ` +
    "say what was looked at and what could not answer (a DNSBL that is down is reported, never counted as " +
    "listed), `data_versions` the datasets' dates. A domain is resolved and its first address scored " +
    "(`domain` says so). Private, loopback and other reserved addresses answer `risk_level: not_applicable` " +
    "with `score: null`. Details: docs/reputation.md.",
  result: reputationResultSchema,
  query: z.strictObject({
    q: required(
      "An IPv4 or IPv6 address, or a domain name (resolved, its first address scored)",
      "203.0.113.7",
    ),
  }),
  input: (q) => ({ q: q.q }),
  fieldNames: { q: "q" },
  errors: [404, 503, 504],
};

export const reputationRoute = (_form: ApiForm): LookupRouteSpec => spec;
