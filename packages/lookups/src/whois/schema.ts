import { z } from "zod";

/** CONTRACT (owned by the whois/ folder; extend, do not rename): a domain name or an IP address. */
export const whoisInputSchema = z.strictObject({
  query: z.string().max(255),
});
export type WhoisInput = z.output<typeof whoisInputSchema>;

export const whoisResultSchema = z.object({
  /** The domain queried (ASCII, lower-case), or the IP address for an IP query. */
  domain: z.string(),
  registrar: z.string().nullable(),
  /** `YYYY-MM-DD` (UTC). */
  expires_at: z.string().nullable(),
  /** Lower-case, without trailing dot, sorted. */
  name_servers: z.array(z.string()),
  source: z.enum(["rdap", "whois"]),
  /** The server that answered (RDAP base URL, or `host:port`). */
  server: z.string(),
});
export type WhoisResult = z.infer<typeof whoisResultSchema>;

/** Everything the WHOIS lookup reaches, injectable. */
export interface WhoisOptions {
  /** IANA RDAP bootstrap files (dns.json, ipv4.json, ipv6.json, asn.json) as parsed JSON. */
  rdapBootstrap?: { dns?: unknown; ipv4?: unknown; ipv6?: unknown; asn?: unknown };
  /** TLD (or "iana", or "ip") → `host[:port]` of a port-43 server, overriding the built-in table. */
  whoisServers?: Record<string, string>;
  /** HTTP client for RDAP; global fetch when omitted. */
  fetch?: typeof fetch;
}
