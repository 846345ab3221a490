import { z } from "zod";
import { domainSchema } from "../dns/schema.js";
import { canonicalIp as canonicalAddress } from "../ip/address.js";
import type { RdapBootstrap } from "./bootstrap.js";

/**
 * CONTRACT (owned by the whois/ folder; extend, do not rename): a domain name or an IP address. The parsed
 * `query` is normalised: an IP literal in its canonical form (IPv6 compressed, lower-case), a domain as the
 * dns lookup takes it (trimmed, lower-case, no trailing dot, IDN in punycode).
 */
export const whoisInputSchema = z.strictObject({
  query: z
    .string()
    .max(255)
    .transform((raw, ctx) => {
      const ip = canonicalIp(raw);
      if (ip !== null) return ip;
      const domain = domainSchema.safeParse(raw);
      if (domain.success) return domain.data;
      ctx.addIssue({
        code: "custom",
        message: domain.error.issues[0]?.message ?? "expected a domain name or an IP address",
      });
      return z.NEVER;
    }),
});
export type WhoisInput = z.output<typeof whoisInputSchema>;

/**
 * An IP literal (IPv6 in brackets too, and IPv4 in brackets as this lookup always took it) in the IP
 * lookup's canonical form (RFC 5952); null for anything else, zone ids and CIDRs included.
 */
export function canonicalIp(raw: string): string | null {
  const parsed = canonicalAddress(raw.trim().replace(/^\[(.*)\]$/, "$1"));
  return parsed.ok ? parsed.ip : null;
}

/** For IP queries: the network the address belongs to, as the registry (RIR) records it. */
export const whoisNetworkSchema = z.object({
  /** The network's name (`TEST-NET-1`, ARIN `NetName`, RIPE `netname`). */
  name: z.string().nullable(),
  /** First and last address of the network. */
  start: z.string().nullable(),
  end: z.string().nullable(),
  /** The network as a CIDR when the registry gives one (the first, when it gives several). */
  cidr: z.string().nullable(),
  /** ISO 3166 alpha-2, as the registry records it. */
  country: z.string().nullable(),
});
export type WhoisNetwork = z.infer<typeof whoisNetworkSchema>;

export const whoisResultSchema = z.object({
  /** The domain queried (ASCII, lower-case), or the IP address for an IP query. */
  domain: z.string(),
  /** The sponsoring registrar; for an IP, the organisation the network is registered to (its registrant). */
  registrar: z.string().nullable(),
  /** `YYYY-MM-DD` (UTC). Always null for an IP. */
  expires_at: z.string().nullable(),
  /** Lower-case, without trailing dot, sorted. */
  name_servers: z.array(z.string()),
  source: z.enum(["rdap", "whois"]),
  /** The server that answered (RDAP base URL, or `host:port`). */
  server: z.string(),
  /** IP queries only: the network holding the address. */
  network: whoisNetworkSchema.optional(),
});
export type WhoisResult = z.infer<typeof whoisResultSchema>;

/** Everything the WHOIS lookup reaches, injectable. */
export interface WhoisOptions {
  /**
   * IANA RDAP bootstrap (dns, ipv4, ipv6, asn) as `loadRdapBootstrap(dir)` reads and checks it; the copy
   * shipped in `data/rdap-bootstrap/` when omitted. RDAP goes through `guardedRequest`, never global fetch.
   */
  rdapBootstrap?: RdapBootstrap | undefined;
  /**
   * Domain suffix (`cn`, `co.uk`), `"iana"` (the referral server, `whois.iana.org` by default) or `"ip"`
   * (the first server for IP addresses, `whois.arin.net` by default) → `host[:port]` (`[v6]:port`) of a
   * port-43 server, taking precedence over the shipped table (`data/whois-servers/`).
   */
  whoisServers?: Record<string, string> | undefined;
}
