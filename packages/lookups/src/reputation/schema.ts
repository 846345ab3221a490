import { z } from "zod";
import { domainSchema } from "../dns/schema.js";
import { canonicalIp } from "../ip/address.js";
import type { ReputationDataSource } from "./datasets.js";
import type { DnsblZone } from "./dnsbl.js";
import { REPUTATION_WEIGHTS, reputationTypes } from "./score.js";

/** Text that reads as an attempt at an address (digits and dots, a colon, a slash): its problem is the IP's. */
const LOOKS_LIKE_IP = /^[0-9.]+$|[:/[\]]/;

/**
 * `q`: an IPv4 or IPv6 address (as the ip lookup takes it: canonical text, brackets and spaces dropped) or a
 * domain (as the dns lookup takes it: lower-case ASCII, no trailing dot), which is resolved and its first
 * address scored.
 */
export const reputationQuerySchema = z
  .string()
  .max(255)
  .transform((raw, ctx): { kind: "ip"; ip: string } | { kind: "domain"; domain: string } => {
    const ip = canonicalIp(raw);
    if (ip.ok) return { kind: "ip", ip: ip.ip };
    const text = raw.trim();
    if (!LOOKS_LIKE_IP.test(text)) {
      const domain = domainSchema.safeParse(text);
      if (domain.success) return { kind: "domain", domain: domain.data };
      ctx.addIssue({
        code: "custom",
        message: `expected an IP address or a domain name: ${domain.error.issues[0]?.message}`,
      });
      return z.NEVER;
    }
    ctx.addIssue({ code: "custom", message: ip.problem });
    return z.NEVER;
  });

export const reputationInputSchema = z.strictObject({ q: reputationQuerySchema }).transform(({ q }) => q);
export type ReputationInput = z.output<typeof reputationInputSchema>;

const signals = Object.keys(REPUTATION_WEIGHTS) as [
  keyof typeof REPUTATION_WEIGHTS,
  ...(keyof typeof REPUTATION_WEIGHTS)[],
];

export const reputationEvidenceSchema = z.object({
  /** The signal family, a key of REPUTATION_WEIGHTS: tor_exit, open_proxy, spamhaus_drop, hosting, … */
  signal: z.enum(signals),
  /** What was found, specifically: "AS14061 (DigitalOcean, LLC) is a hosting ASN". */
  description: z.string(),
  /** Points this item adds; 0 for informational items (residential). */
  weight: z.number().int().min(0),
});

export const reputationResultSchema = z.object({
  /** The address scored, canonical: the query's, its IPv4 form when it carries one, or a domain's first address. */
  ip: z.string(),
  /** The query as normalised: canonical address or lower-case ASCII domain. */
  query: z.string(),
  /** The domain resolved, when the query was one; else null. */
  domain: z.string().nullable(),
  /** 0–100, the sum of the evidence weights (capped at 100); null when not applicable (reserved address). */
  score: z.number().int().min(0).max(100).nullable(),
  /** The weights added up to more than 100. */
  score_capped: z.boolean(),
  /** low 0–24, medium 25–49, high 50–74, critical 75–100; not_applicable for reserved addresses. */
  risk_level: z.enum(["low", "medium", "high", "critical", "not_applicable"]),
  /** Tags the evidence supports, in this order: proxy, vpn, hosting, tor, residential. */
  types: z.array(z.enum(reputationTypes)),
  /** Heaviest first; each signal family at most once. */
  evidence: z.array(reputationEvidenceSchema),
  /** ISO 3166-1 alpha-2 from the IP data; null when unknown, reserved, or the IP data is not loaded. */
  country: z.string().nullable(),
  /** `AS<number>`. */
  asn: z.string().nullable(),
  /** The AS organisation (as the ip lookup's `isp`). */
  isp: z.string().nullable(),
  /** A private, loopback, documentation… address: nothing is checked, score null. */
  reserved: z.boolean(),
  /** The special range's category when reserved (the ip lookup's names), else null. */
  range: z.string().nullable(),
  /** Signals looked at: datasets (tor_exits, hosting_asns…), `dnsbl:<zone>`, `rdns`. */
  signals_checked: z.array(z.string()),
  /** Signals that could not answer and why: a low score may then be missing evidence, not a clean address. */
  signals_unavailable: z.array(z.object({ signal: z.string(), reason: z.string() })),
  /** Per dataset its data date (cloud ranges per provider, `cloud_ranges/<provider>`), and `ip_data`. */
  data_versions: z.record(z.string(), z.string()),
});
export type ReputationResult = z.infer<typeof reputationResultSchema>;

/** What the reputation lookup reads besides the IP data (ctx.reputation). */
export interface ReputationOptions {
  /** The datasets: a ReputationData or ReputationDataHolder. Without it the lookup fails `unavailable`. */
  data?: ReputationDataSource | undefined;
  /**
   * DNSBL zones to ask (parseDnsblZones) and the resolver to ask them through (`host[:port]`), which is the
   * operator's: not subject to the target guard. Spamhaus refuses queries relayed by public resolvers.
   * Without it, `ctx.dnsServer` (else the host's resolver) is asked. No zones: no DNSBL checks.
   */
  dnsbl?: { zones: readonly DnsblZone[]; server?: string | undefined } | undefined;
  /** Reverse DNS (PTR and forward confirmation) through `ctx.dnsServer`; on unless false. */
  rdns?: boolean | undefined;
}
