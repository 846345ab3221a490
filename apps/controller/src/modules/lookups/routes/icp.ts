import { z } from "@hono/zod-openapi";
import { icpResultSchema } from "@vantage/lookups";
import type { ApiForm } from "../../../http/security.js";
import { type LookupRouteSpec, required } from "./lookup-route.js";

const common = {
  kind: "icp",
  path: "/v1/info/icp",
  summary: "ICP registration (mainland China) of a domain",
  description:
    "From a chain of sources, never invented: the ICP provider API when configured " +
    "(`VANTAGE_ICP_PROVIDER_URL`, `source: provider`, `verified: true`), else the number the site shows " +
    "on its home page (`source: site_footer`, `verified: false`), else the last answer kept " +
    "(`source: cache`, with its `checked_at`). A domain with no registration is a 200 with empty fields " +
    "and `status: not_found`. When no source can answer: 503 `source_unavailable`.",
  result: icpResultSchema,
  errors: [422, 503, 504],
} as const;

/** Form A: `q`. */
const formA: LookupRouteSpec = {
  ...common,
  query: z.strictObject({ q: required("Domain name", "baidu.com") }),
  input: (q) => ({ domain: q.q }),
  fieldNames: { domain: "q" },
};

/** Form B: `domain`. */
const formB: LookupRouteSpec = {
  ...common,
  query: z.strictObject({ domain: required("Domain name", "baidu.com") }),
  input: (q) => ({ domain: q.domain }),
  fieldNames: { domain: "domain" },
};

export const icpRoute = (form: ApiForm): LookupRouteSpec => (form === "a" ? formA : formB);
