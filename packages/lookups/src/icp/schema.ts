import { z } from "zod";
import { domainSchema } from "../dns/schema.js";

/**
 * CONTRACT (owned by the icp/ folder; extend, do not rename): a domain name, as the DNS lookup takes it
 * (trimmed, lower-cased, trailing dot dropped, an IDN turned into punycode; IP literals refused).
 */
export const icpInputSchema = z.strictObject({
  domain: domainSchema,
});
export type IcpInput = z.output<typeof icpInputSchema>;

/**
 * `found`: a provider holds a registration. `not_found`: a provider says there is none (verified), or the
 * home page showed no number (unverified). `unverified`: the home page shows a well-formed number nobody
 * has checked against MIIT.
 */
export const icpStatuses = ["found", "not_found", "unverified"] as const;
export type IcpStatus = (typeof icpStatuses)[number];

/** Where an answer came from: `cache` replays an earlier live answer (`origin` says which). */
export const icpSources = ["provider", "site_footer", "cache"] as const;
export type IcpSource = (typeof icpSources)[number];

/** 备 → non-commercial filing, 证 → commercial licence; "" when there is no number. */
export const icpLicenseTypes = ["", "non_commercial_filing", "commercial_license"] as const;
export type IcpLicenseType = (typeof icpLicenseTypes)[number];

export const icpResultSchema = z.object({
  /** The domain asked about, ASCII (punycode), lower-case. */
  domain: z.string(),
  /** The website's number as filed (`京ICP备10046444号-9`); "" when there is none. */
  icp_number: z.string(),
  /** The registrant (MIIT unitName); "" when unknown: a footer never names it, so it is never guessed. */
  company: z.string(),
  license_type: z.enum(icpLicenseTypes),
  /** The registrant's number, `icp_number` without its `-N` website suffix; "" when there is none. */
  main_licence: z.string(),
  /** The registrant's nature (MIIT natureName: 企业, 个人, 事业单位…); "" when unknown. */
  nature: z.string(),
  status: z.enum(icpStatuses),
  source: z.enum(icpSources),
  /** The live source that produced the answer: equal to `source` unless that is `cache`. */
  origin: z.enum(["provider", "site_footer"]),
  /** True only for a provider's answer (MIIT data); a footer is the site's own claim. */
  verified: z.boolean(),
  /** For `site_footer`: the page read, after redirects; "" otherwise. */
  page_url: z.string(),
  /** When the live source answered (ISO 8601 UTC); a cached answer keeps its original time. */
  checked_at: z.string(),
});
export type IcpResult = z.infer<typeof icpResultSchema>;

/** Earlier answers, kept by the caller (the controller keeps them in PostgreSQL). */
export interface IcpCacheStore {
  get(domain: string): Promise<IcpResult | undefined>;
  put(result: IcpResult): Promise<void>;
}

/** Everything the ICP lookup reaches, injectable. */
export interface IcpOptions {
  /**
   * A third-party ICP API (VANTAGE_ICP_PROVIDER_URL / _KEY); see provider.ts for the HTTP contract. The
   * operator chose it, so it may sit on a private address (a local proxy): the target guard does not apply.
   */
  provider?: { url: string; key?: string | undefined; timeoutMs?: number | undefined } | undefined;
  cache?: IcpCacheStore | undefined;
  /**
   * The home-page URLs to try, in order, for an ASCII domain. Default: `https://d/`, `http://d/`, then the
   * same for `www.d` (unless `d` starts with `www.`). Tests point it at loopback ports.
   */
  homePageUrls?: ((domain: string) => string[]) | undefined;
  /** Longest wait for one home-page URL, redirects included, ms (default 5000). */
  homePageTimeoutMs?: number | undefined;
}
