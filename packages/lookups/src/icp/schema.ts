import { z } from "zod";

/** CONTRACT (owned by the icp/ folder; extend, do not rename): a domain name. */
export const icpInputSchema = z.strictObject({
  domain: z.string().max(255),
});
export type IcpInput = z.output<typeof icpInputSchema>;

export const icpResultSchema = z.object({
  domain: z.string(),
  icp_number: z.string(),
  company: z.string(),
  license_type: z.string(),
  /** found | not_found | unverified … (documented in the package README). */
  status: z.string(),
  /** provider | site_footer | cache */
  source: z.string(),
  verified: z.boolean(),
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
  /** A third-party ICP API (VANTAGE_ICP_PROVIDER_URL / _KEY). */
  provider?: { url: string; key?: string | undefined } | undefined;
  cache?: IcpCacheStore | undefined;
  fetch?: typeof fetch;
}
