import { z } from "@hono/zod-openapi";
import { sslResultSchema } from "@vantage/lookups";
import type { ApiForm } from "../../../http/security.js";
import { type LookupRouteSpec, optional, required } from "./lookup-route.js";

/** Both forms take `q` (a bare domain) and an optional `port`. */
const spec: LookupRouteSpec = {
  kind: "ssl",
  path: "/v1/info/ssl",
  summary: "SSL/TLS audit: certificate chain, protocols, OCSP, CT, warnings and a letter grade",
  description:
    "Real handshakes with the server: one per protocol version (TLS 1.0–1.3) for `tls_versions`, the " +
    "certificate chain as sent, the stapled OCSP response, embedded SCTs, and one HTTPS HEAD for HSTS. " +
    "`valid` is checked against the system's trust store. `grade` follows the SSL Labs rating guide " +
    "(`T`: trust problems, `M`: name mismatch); see docs/tls-grading.md.",
  query: z.strictObject({
    q: required("Bare domain name, no scheme or path", "example.com"),
    port: optional("TCP port, 1–65535 (default 443)", "443"),
  }),
  input: (q) => ({ domain: q.q, ...(q.port === undefined || q.port.trim() === "" ? {} : { port: q.port }) }),
  fieldNames: { domain: "q", port: "port" },
  result: sslResultSchema,
  errors: [422, 502, 504],
};

export const sslRoute = (_form: ApiForm): LookupRouteSpec => spec;
